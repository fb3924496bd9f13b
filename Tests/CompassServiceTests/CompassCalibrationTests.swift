import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import ServiceRuntime
import Testing

@Suite("Compass calibration")
struct CompassCalibrationTests {
    static let configuration = CompassConfiguration(smoothing: 0.25, maxRate: 1_000, deadBand: 0, staleAfter: 30)
    /// A 40 µT hard-iron offset and ±8% soft iron: raw = distortion · field + hardIron.
    static let hardIron = Vector3(30, -20, 17.3)
    static let distortion = Matrix3(
        rows: Vector3(1.08, 0.03, 0.0), Vector3(0.03, 0.92, 0.02), Vector3(0.0, 0.02, 1.0))

    static func distorted(_ field: Vector3) -> Vector3 { distortion * field + hardIron }

    /// Sends flat samples at a heading and returns the retained heading once the last is handled.
    static func holdFlat(
        _ harness: CompassTestHarness, _ id: String, heading: Double, from start: Date, distort: Bool = true
    ) async throws -> HeadingMessage? {
        let reading = DeviceMotion(field: CompassTestHarness.boulderField()).reading(heading: heading, pitch: 0, roll: 0)
        for index in 0..<100 {
            try await harness.sendSample(
                id, at: start.addingTimeInterval(Double(index) * 0.02), accel: reading.accel, mag: distort ? distorted(reading.mag) : reading.mag)
        }
        try await harness.drain()
        return harness.heading(id)
    }

    @Test("a figure-8 with hard and soft iron calibrates to within 1°, and the calibration survives a restart")
    func figureEightAndRestart() async throws {
        let harness = CompassTestHarness()
        let after = CompassTestHarness.start.addingTimeInterval(100)
        try await harness.withService(Self.configuration) { harness in
            try await harness.locate("fig8")
            try await harness.locate("raw")
            // Without a calibration the distortion swings the heading far off.
            let raw = try await Self.holdFlat(harness, "raw", heading: 120, from: CompassTestHarness.start)
            #expect(abs(Angle.difference(from: 120, to: raw?.trueHeading ?? 120)) > 5)

            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            for index in 0..<1_500 {
                let step = Double(index)
                let reading = motion.reading(
                    heading: step * 2.9, pitch: 75 * sin(2 * .pi * step / 333), roll: 175 * sin(2 * .pi * step / 247))
                try await harness.sendSample(
                    "fig8", at: CompassTestHarness.start.addingTimeInterval(step * 0.02), accel: reading.accel,
                    mag: Self.distorted(reading.mag))
            }
            let heading = try await Self.holdFlat(harness, "fig8", heading: 120, from: after.addingTimeInterval(-50))
            #expect(heading?.calibrationState == .calibrated)
            #expect(abs(Angle.difference(from: 120, to: heading?.trueHeading ?? .nan)) < 1)
            let calibration = try #require(harness.retained(CalibrationMessage.self, "fig8", .calibration))
            #expect(calibration.calibrationState == .calibrated)
            #expect(((calibration.hardIronVector ?? .zero) - Self.hardIron).norm < 2)
            #expect(calibration.expectedFieldStrength != nil)
        }
        // A new service instance restores the retained calibration before any new sample.
        try await harness.withService(Self.configuration, clientID: "compass-2") { harness in
            try await harness.locate("fig8")
            let heading = try await Self.holdFlat(harness, "fig8", heading: 200, from: after)
            #expect(heading?.calibrationState == .calibrated)
            #expect(abs(Angle.difference(from: 200, to: heading?.heading ?? .nan)) < 1)
        }
    }

    @Test("a retained calibration message is restored on start")
    func restoreFromRetained() async throws {
        let harness = CompassTestHarness()
        let softIron = try #require(Self.distortion.inverse())
        let strength = CompassTestHarness.boulderField().totalIntensity / 1_000
        let message = CalibrationMessage(
            state: .calibrated, quality: 0.9, coverage: 0.8, hardIron: Self.hardIron, softIron: softIron,
            fieldStrength: strength, expectedFieldStrength: strength, message: "Compass calibrated.")
        let payload = String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
        try await harness.send("kept", .calibration, payload, retain: true)
        try await harness.withService(Self.configuration) { harness in
            try await harness.locate("kept")
            let heading = try await Self.holdFlat(harness, "kept", heading: 300, from: CompassTestHarness.start)
            #expect(heading?.calibrationState == .calibrated)
            #expect(abs(Angle.difference(from: 300, to: heading?.heading ?? .nan)) < 1)
        }
    }

    @Test("cmd/calibrate reset forgets the calibration and start begins collecting")
    func calibrateCommands() async throws {
        let harness = CompassTestHarness()
        let strength = CompassTestHarness.boulderField().totalIntensity / 1_000
        let message = CalibrationMessage(
            state: .calibrated, quality: 0.9, coverage: 0.8, hardIron: Self.hardIron, softIron: .identity,
            fieldStrength: strength, expectedFieldStrength: nil, message: "Compass calibrated.")
        try await harness.send(
            "cmd", .calibration, String(decoding: try JSONEncoder().encode(message), as: UTF8.self), retain: true)
        try await harness.withService(Self.configuration) { harness in
            try await harness.send("cmd", .commandCalibrate, #"{"action":"reset"}"#)
            let reset = try await harness.waitFor {
                harness.retained(CalibrationMessage.self, "cmd", .calibration).flatMap { $0.calibrationState == .uncalibrated ? $0 : nil }
            }
            #expect(reset?.hardIronVector == .zero)
            #expect(reset?.softIronMatrix == .identity)
            try await harness.send("cmd", .commandCalibrate, #"{"action":"start"}"#)
            let started = try await harness.waitFor {
                harness.retained(CalibrationMessage.self, "cmd", .calibration).flatMap { $0.calibrationState == .calibrating ? $0 : nil }
            }
            #expect(started?.message?.contains("figure-8") == true)
        }
    }
}
