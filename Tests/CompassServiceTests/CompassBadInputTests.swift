import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import ServiceRuntime
import Testing

@Suite("Compass bad inputs")
struct CompassBadInputTests {
    @Test("every bad input is reported on the error topic and the service goes on")
    func badInputs() async throws {
        let harness = CompassTestHarness()
        let configuration = CompassConfiguration(smoothing: 0.25, maxRate: 1_000, deadBand: 0, staleAfter: 30)
        try await harness.withService(configuration) { harness in
            let errors = try await harness.device.subscribe(to: "stepcompass/errors/compass", qos: .atMostOnce)
            let bad: [(String, Topics.DeviceTopic, String)] = [
                ("d1", .imu, "not json"),
                ("d1", .imu, #"{"accel":[0,0,9.8]}"#),
                ("d1", .imu, #"{"accel":[0,0],"mag":[1,2,3]}"#),
                ("d1", .imu, #"{"accel":[0,0,1e999],"mag":[1,2,3]}"#),
                ("d1", .imu, #"{"accel":[0,0,0],"mag":[1,2,3]}"#),
                ("d1", .imu, #"{"accel":[0,0,9.8],"mag":[0,0,40]}"#),
                ("d1", .imu, #"{"timestamp":"yesterday","accel":[0,0,9.8],"mag":[20,0,-40]}"#),
                ("d1", .imu, "[1,2,3]"),
                ("bad.id", .imu, #"{"accel":[0,0,9.8],"mag":[20,0,-40]}"#),
                ("markers-x", .location, #"{"latitude":100,"longitude":0}"#),
                ("d1", .location, #"{"latitude":10,"longitude":0,"altitude":2000000}"#),
                ("d1", .location, #"{"latitude":"north","longitude":0}"#),
                ("d1", .permissions, #"{"motion":"maybe"}"#),
                ("d1", .commandSettings, #"{"north":"grid"}"#),
                ("d1", .commandCalibrate, #"{"action":"explode"}"#),
                ("d1", .commandBearingLock, #"{"action":"lock","bearing":10,"threshold":500}"#),
                ("d1", .commandBearingLock, #"{"action":"spin"}"#),
                ("d1", .imu, "{" + String(repeating: " ", count: 70_000) + "}"),
            ]
            for (device, topic, payload) in bad {
                try await harness.send(device, topic, payload)
            }
            // A reserved name as device id.
            try await harness.device.publish(
                BusMessage(topic: "stepcompass/simulation/imu", text: #"{"accel":[0,0,9.8],"mag":[20,0,-40]}"#))
            let reports = await errors.collect(bad.count + 1, timeout: .seconds(5))
            #expect(reports.count == bad.count + 1)
            let topics = reports.compactMap { report -> String? in
                (try? JSONSerialization.jsonObject(with: report.payload) as? [String: Any])?["topic"] as? String
            }
            #expect(topics.count == bad.count + 1)
            #expect(topics.contains("stepcompass/bad.id/imu"))
            // Nothing bad was published as a heading, and a good sample still works.
            #expect(harness.heading("d1") == nil)
            let reading = DeviceMotion(field: CompassTestHarness.boulderField()).reading(heading: 5, pitch: 0, roll: 0)
            try await harness.sendSample("d1", at: CompassTestHarness.start, accel: reading.accel, mag: reading.mag)
            try await harness.waitForHeading("d1") { $0.headingStatus == .ok }
            let extra = await errors.collect(1, timeout: .milliseconds(100))
            #expect(extra.isEmpty)
        }
    }

    @Test("cleared retained messages (stepcompass forget) are not bad input: no error report")
    func clearedRetained() async throws {
        let harness = CompassTestHarness()
        try await harness.withService(CompassConfiguration()) { harness in
            let errors = try await harness.device.subscribe(to: "stepcompass/errors/compass", qos: .atMostOnce)
            // What `stepcompass forget` clears: the device's retained topics.
            for topic in Topics.retainedDeviceTopics {
                try await harness.send("forgotten", topic, "", retain: true)
            }
            let reading = DeviceMotion(field: CompassTestHarness.boulderField()).reading(heading: 5, pitch: 0, roll: 0)
            try await harness.sendSample("forgotten", at: CompassTestHarness.start, accel: reading.accel, mag: reading.mag)
            try await harness.waitForHeading("forgotten") { $0.headingStatus == .ok }
            // An empty live command is bad input: the first report is about it, none came for the cleared topics.
            try await harness.send("forgotten", .commandSettings, "")
            let report = try #require(await errors.next(timeout: .seconds(10)))
            #expect(report.text.contains("forgotten/cmd/settings"))
        }
    }

    @Test("a sample older than the previous one is rejected")
    func outOfOrder() async throws {
        let harness = CompassTestHarness()
        try await harness.withService(CompassConfiguration()) { harness in
            let errors = try await harness.device.subscribe(to: "stepcompass/errors/compass", qos: .atMostOnce)
            let reading = DeviceMotion(field: CompassTestHarness.boulderField()).reading(heading: 5, pitch: 0, roll: 0)
            try await harness.sendSample("o", at: CompassTestHarness.start, accel: reading.accel, mag: reading.mag)
            try await harness.sendSample(
                "o", at: CompassTestHarness.start.addingTimeInterval(-1), accel: reading.accel, mag: reading.mag)
            let report = await errors.next(timeout: .seconds(2))
            #expect(report != nil)
        }
    }
}
