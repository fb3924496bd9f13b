import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import ServiceRuntime
import Testing
import WalkerSimulation

@Suite("Walking direction in the heading message")
struct CompassWalkingDirectionTests {
    static func imu(_ date: Date, _ accel: [Double], _ mag: [Double], _ gyro: [Double]?) -> String {
        func vector(_ v: [Double]) -> String { "[\(v[0]),\(v[1]),\(v[2])]" }
        var text = "{\"timestamp\":\"\(DeviceMotion.format(date))\",\"accel\":\(vector(accel)),\"mag\":\(vector(mag))"
        if let gyro { text += ",\"gyro\":\(vector(gyro))" }
        return text + "}"
    }

    @Test("a still device publishes walkingDirection null; the payload carries the field")
    func nullWhileUnknown() async throws {
        let harness = CompassTestHarness()
        try await harness.withService(CompassConfiguration()) { harness in
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            let reading = motion.reading(heading: 30, pitch: 0, roll: 0)
            try await harness.sendSample("still", at: CompassTestHarness.start, accel: reading.accel, mag: reading.mag)
            let message = try await harness.waitForHeading("still") { $0.heading != nil }
            #expect(message?.walkingDirection == nil)
            let raw = try #require(harness.broker.retainedMessage(on: harness.topics.device("still", .heading)))
            #expect(raw.text.contains("\"walkingDirection\":null"))
        }
    }

    @Test(
        "a phone in a trouser pocket: walkingDirection lies along the walk (true north)",
        arguments: [false, true])
    func pocketWalk(gyro: Bool) async throws {
        var configuration = WalkerConfiguration()
        configuration.carry = .pocket
        configuration.route = .straight(heading: 60)
        configuration.hardIronMagnitude = 0
        configuration.softIronDistortion = 0
        configuration.figureEight = false
        let model = CompassTestHarness.model
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: model)
        let payloads = walker.advance(to: 30).compactMap { event -> String? in
            guard case .imu(let t, let accel, let mag, let rate) = event else { return nil }
            return Self.imu(walker.date(at: t), accel, mag, gyro ? rate : nil)
        }
        let truth = walker.walkingHeading
        let start = (latitude: configuration.startLatitude, longitude: configuration.startLongitude)
        let harness = CompassTestHarness()
        try await harness.withService(CompassConfiguration()) { harness in
            try await harness.locate("pocket", latitude: start.latitude, longitude: start.longitude)
            for payload in payloads { try await harness.send("pocket", .imu, payload) }
            try await harness.drain()
            let message = try await harness.waitForHeading("pocket", timeout: 60) { $0.walkingDirection != nil }
            let direction = try #require(message?.walkingDirection)
            let heading = try #require(message?.heading)
            #expect(message?.northReference == .true)
            // The walking line. (Which way along it comes from the gait's phase; the simulator's pocket gait does not
            // model the inverted pendulum the estimator relies on, so the sign is not checked here: see
            // StepDetectionTests for the estimator's own recordings.)
            let offset = abs(Angle.difference(from: truth, to: direction))
            #expect(min(offset, 180 - offset) < 20)
            #expect(direction >= 0 && direction < 360)
            print("pocket walk (gyro \(gyro)): walking direction \(direction), device heading \(heading), truth \(truth)")
        }
    }

    @Test("a good GPS course sets the walking direction before any step")
    func courseFromLocation() async throws {
        let harness = CompassTestHarness()
        try await harness.withService(CompassConfiguration()) { harness in
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            let reading = motion.reading(heading: 30, pitch: 0, roll: 0)
            try await harness.sendSample("gps", at: CompassTestHarness.start, accel: reading.accel, mag: reading.mag)
            let b = CompassTestHarness.boulder
            // Too slow: ignored.
            try await harness.send("gps", .location, "{\"latitude\":\(b.latitude),\"longitude\":\(b.longitude),\"speed\":0.3,\"course\":100}")
            try await harness.send("gps", .location, "{\"latitude\":\(b.latitude),\"longitude\":\(b.longitude),\"speed\":1.4,\"course\":100}")
            try await harness.sendSample(
                "gps", at: CompassTestHarness.start.addingTimeInterval(0.5), accel: reading.accel, mag: reading.mag)
            let message = try await harness.waitForHeading("gps") { $0.walkingDirection != nil }
            #expect(abs(Angle.difference(from: 100, to: try #require(message?.walkingDirection))) < 1e-6)
        }
    }
}
