import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import ServiceRuntime
import Testing

@Suite("Compass headings over the in-memory bus")
struct CompassHeadingTests {
    static let fast = CompassConfiguration(smoothing: 0.25, maxRate: 1_000, deadBand: 0, staleAfter: 30)

    @Test("a flat device pointing at true north reports the WMM declination and true heading 0")
    func flatTrueNorth() async throws {
        let harness = CompassTestHarness()
        try await harness.withService(Self.fast) { harness in
            let field = CompassTestHarness.boulderField()
            let reading = DeviceMotion(field: field).reading(heading: 0, pitch: 0, roll: 0)
            try await harness.locate("flat")
            var last = CompassTestHarness.start
            for index in 0..<10 {
                last = CompassTestHarness.start.addingTimeInterval(Double(index) * 0.02)
                try await harness.sendSample("flat", at: last, accel: reading.accel, mag: reading.mag)
            }
            try await harness.drain()
            let heading = harness.heading("flat")
            let expected = try CompassTestHarness.model.field(
                latitude: CompassTestHarness.boulder.latitude, longitude: CompassTestHarness.boulder.longitude,
                altitude: 0, date: last)
            #expect(heading?.headingStatus == .ok)
            #expect(heading?.northReference == .true)
            #expect(abs((heading?.declination ?? .nan) - expected.declination) < 0.01)
            #expect(abs(Angle.difference(from: 0, to: heading?.trueHeading ?? .nan)) < 0.05)
            #expect(abs(Angle.difference(from: 0, to: heading?.heading ?? .nan)) < 0.05)
            #expect(abs(Angle.difference(from: -expected.declination, to: heading?.magneticHeading ?? .nan)) < 0.05)
            #expect(heading?.cardinalPoint == .n)
            #expect(abs((heading?.fieldStrength ?? 0) - expected.totalIntensity / 1_000) < 0.5)
        }
    }

    @Test(
        "tilted and face-down devices give the true heading within 0.5°",
        arguments: [
            (45.0, 60.0, 0.0), (135.0, -60.0, 0.0), (200.0, 0.0, 60.0), (300.0, 0.0, -60.0), (20.0, 45.0, -45.0),
            (90.0, 0.0, 180.0), (250.0, 30.0, 180.0), (10.0, -40.0, 170.0), (359.0, 60.0, 60.0),
        ])
    func tilted(heading: Double, pitch: Double, roll: Double) async throws {
        let harness = CompassTestHarness()
        try await harness.withService(Self.fast) { harness in
            let reading = DeviceMotion(field: CompassTestHarness.boulderField()).reading(
                heading: heading, pitch: pitch, roll: roll)
            try await harness.locate("tilt")
            for index in 0..<5 {
                let date = CompassTestHarness.start.addingTimeInterval(Double(index) * 0.02)
                try await harness.sendSample("tilt", at: date, accel: reading.accel, mag: reading.mag)
            }
            try await harness.drain()
            let message = harness.heading("tilt")
            let result = try #require(message)
            #expect(abs(Angle.difference(from: heading, to: result.trueHeading ?? .nan)) < 0.5)
            #expect(abs((result.pitch ?? .nan) - pitch) < 0.5)
            #expect(abs(Angle.difference(from: roll, to: result.roll ?? .nan)) < 0.5)
        }
    }

    @Test("north is magnetic until a location is known, then follows the device's setting")
    func northSetting() async throws {
        let harness = CompassTestHarness()
        try await harness.withService(Self.fast) { harness in
            let field = CompassTestHarness.boulderField()
            let reading = DeviceMotion(field: field).reading(heading: 100, pitch: 0, roll: 0)
            try await harness.sendSample("n", at: CompassTestHarness.start, accel: reading.accel, mag: reading.mag)
            let before = try await harness.waitForHeading("n") { _ in true }
            #expect(before?.northReference == .magnetic)
            #expect(before?.trueHeading == nil)
            #expect(before?.declination == nil)
            #expect(abs(Angle.difference(from: 100 - field.declination, to: before?.heading ?? .nan)) < 0.05)
            let raw = try #require(harness.broker.retainedMessage(on: harness.topics.device("n", .heading)))
            #expect(raw.text.contains("\"trueHeading\":null"))
            #expect(raw.qos == .atMostOnce)

            try await harness.locate("n")
            let located = try await harness.waitForHeading("n") { $0.northReference == .true }
            #expect(abs(Angle.difference(from: 100, to: located?.heading ?? .nan)) < 0.05)

            try await harness.send("n", .commandSettings, #"{"north":"magnetic"}"#)
            let magnetic = try await harness.waitForHeading("n") { $0.northReference == .magnetic }
            #expect(magnetic?.heading == magnetic?.magneticHeading)
            #expect(magnetic?.trueHeading != nil)
            #expect(magnetic?.cardinalPoint == Cardinal(heading: magnetic?.magneticHeading ?? 0))

            try await harness.send("n", .commandSettings, #"{"north":"true"}"#)
            try await harness.waitForHeading("n") { $0.northReference == .true && $0.heading == $0.trueHeading }
        }
    }

    @Test("motion denied or restricted is noPermission, unavailable is noSensor")
    func permissions() async throws {
        let harness = CompassTestHarness()
        try await harness.withService(Self.fast) { harness in
            try await harness.send("p", .permissions, #"{"motion":"denied","location":"authorized"}"#, retain: true)
            let denied = try await harness.waitForHeading("p") { $0.headingStatus == .noPermission }
            #expect(denied?.heading == nil)
            try await harness.send("p", .permissions, #"{"motion":"unavailable","location":"authorized"}"#)
            try await harness.waitForHeading("p") { $0.headingStatus == .noSensor }
            try await harness.send("p", .permissions, #"{"motion":"restricted","location":"denied"}"#)
            try await harness.waitForHeading("p") { $0.headingStatus == .noPermission }
            try await harness.send("p", .permissions, #"{"motion":"authorized","location":"authorized"}"#)
            // No sample has come: the retained message must stop saying noPermission.
            try await harness.waitForHeading("p") { $0.headingStatus == .stale }
            let reading = DeviceMotion(field: CompassTestHarness.boulderField()).reading(heading: 10, pitch: 0, roll: 0)
            try await harness.sendSample("p", at: CompassTestHarness.start, accel: reading.accel, mag: reading.mag)
            try await harness.waitForHeading("p") { $0.headingStatus == .ok && $0.heading != nil }
        }
    }

    @Test("the WMM blackout zone widens the accuracy to at least 30°")
    func blackoutAccuracy() async throws {
        // Find a blackout point near the north magnetic pole from the model itself.
        let date = CompassTestHarness.start
        var pole: (latitude: Double, longitude: Double)?
        search: for latitude in stride(from: 84.0, through: 89.0, by: 0.5) {
            for longitude in stride(from: -180.0, to: 180.0, by: 5) {
                let field = try CompassTestHarness.model.field(
                    latitude: latitude, longitude: longitude, altitude: 0, date: date)
                if field.reliability == .blackout {
                    pole = (latitude, longitude)
                    break search
                }
            }
        }
        let point = try #require(pole)
        let polar = try CompassTestHarness.model.field(
            latitude: point.latitude, longitude: point.longitude, altitude: 0, date: date)
        let harness = CompassTestHarness()
        // Both devices calibrated (an undistorted magnetometer), so calibration does not dominate.
        for (id, field) in [("pole", polar), ("boulder", CompassTestHarness.boulderField())] {
            let calibration = CalibrationMessage(
                state: .calibrated, quality: 0.95, coverage: 0.9, hardIron: .zero, softIron: .identity,
                fieldStrength: field.totalIntensity / 1_000, expectedFieldStrength: field.totalIntensity / 1_000,
                message: "Compass calibrated.")
            try await harness.send(
                id, .calibration, String(decoding: try JSONEncoder().encode(calibration), as: UTF8.self), retain: true)
        }
        try await harness.withService(Self.fast) { harness in
            try await harness.locate("pole", latitude: point.latitude, longitude: point.longitude)
            try await harness.locate("boulder")
            let there = DeviceMotion(field: polar).reading(heading: 40, pitch: 0, roll: 0)
            let here = DeviceMotion(field: CompassTestHarness.boulderField()).reading(heading: 40, pitch: 0, roll: 0)
            try await harness.sendSample("pole", at: date, accel: there.accel, mag: there.mag)
            try await harness.sendSample("boulder", at: date, accel: here.accel, mag: here.mag)
            try await harness.drain()
            #expect((harness.heading("pole")?.accuracy ?? 0) >= 30)
            #expect((harness.heading("boulder")?.accuracy ?? 90) < 30)
        }
    }
}
