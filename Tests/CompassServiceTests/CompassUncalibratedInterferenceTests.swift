import CompassKit
import CompassService
import Foundation
import ServiceRuntime
import Testing

@Suite("Compass interference before calibration")
struct CompassUncalibratedInterferenceTests {
    static let configuration = CompassConfiguration(smoothing: 0.25, maxRate: 1_000, deadBand: 0, staleAfter: 30)

    @Test("an uncalibrated device in a 100 µT field publishes interference and guidance to move away or calibrate")
    func strongFieldBeforeCalibration() async throws {
        let harness = CompassTestHarness()
        try await harness.withService(Self.configuration) { harness in
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            let reading = motion.reading(heading: 90, pitch: 0, roll: 0)
            // Scale the Earth's field (about 52 µT at Boulder) to 100 µT, which no place on Earth has.
            let strong = reading.mag * (100 / reading.mag.norm)
            for index in 0..<20 {
                try await harness.sendSample(
                    "near-metal", at: CompassTestHarness.start.addingTimeInterval(Double(index) * 0.02),
                    accel: reading.accel, mag: strong)
            }
            let heading = try await harness.waitForHeading("near-metal") { $0.interference == true }
            #expect(heading?.headingStatus == .ok)
            #expect(heading?.calibrationState == .uncalibrated || heading?.calibrationState == .calibrating)
            #expect(abs((heading?.fieldStrength ?? 0) - 100) < 0.5)
            let calibration = try await harness.waitFor {
                harness.retained(CalibrationMessage.self, "near-metal", .calibration)
                    .flatMap { $0.message == CalibrationFitter.interferenceMessage ? $0 : nil }
            }
            #expect(calibration?.message?.contains("Move away from metal") == true)
            #expect(calibration?.message?.contains("calibrate") == true)

            // Back in a normal field, the flag clears and the calibration guidance returns.
            for index in 20..<200 {
                try await harness.sendSample(
                    "near-metal", at: CompassTestHarness.start.addingTimeInterval(Double(index) * 0.02),
                    accel: reading.accel, mag: reading.mag)
            }
            let cleared = try await harness.waitForHeading("near-metal") { $0.interference == false }
            #expect(cleared?.calibrationState != .calibrated)
            let guidance = try await harness.waitFor {
                harness.retained(CalibrationMessage.self, "near-metal", .calibration)
                    .flatMap { $0.message != CalibrationFitter.interferenceMessage ? $0 : nil }
            }
            #expect(guidance?.message?.contains("figure-8") == true)
        }
    }
}
