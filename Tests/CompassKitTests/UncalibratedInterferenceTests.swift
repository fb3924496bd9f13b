import CompassKit
import Testing

/// Interference before calibration: a field far outside what the World Magnetic Model allows anywhere
/// (below 15 or above 80 µT) is flagged without a calibration; the calibrated detector still works.
@Suite struct UncalibratedInterferenceTests {
    /// Runs an uncalibrated pipeline on a flat device in a field of the given strength (µT) for 2 s at 50 Hz.
    static func uncalibratedOutput(strength: Double) throws -> HeadingPipeline.Output {
        var pipeline = HeadingPipeline()
        let field = Synthetic.earthField * (strength / Synthetic.earthField.norm)
        let reading = Synthetic.reading(heading: 90, pitch: 0, roll: 0, field: field)
        var out: HeadingPipeline.Output?
        for i in 0..<100 {
            out = pipeline.process(timestamp: Double(i) * 0.02, accel: reading.accel, mag: reading.mag)
        }
        return try #require(out)
    }

    @Test("a 10 µT field is interference before calibration")
    func weakField() throws {
        let out = try Self.uncalibratedOutput(strength: 10)
        #expect(abs(out.smoothedFieldStrength - 10) < 1e-6)
        #expect(out.interference)
    }

    @Test("a 100 µT field is interference before calibration")
    func strongField() throws {
        let out = try Self.uncalibratedOutput(strength: 100)
        #expect(abs(out.smoothedFieldStrength - 100) < 1e-6)
        #expect(out.interference)
    }

    @Test("a 50 µT field is not interference before calibration")
    func normalField() throws {
        let out = try Self.uncalibratedOutput(strength: 50)
        #expect(!out.interference)
        // Even where the model expects another strength: without a calibration only the plausible range counts.
        var pipeline = HeadingPipeline()
        pipeline.expectedFieldStrength = 30
        let reading = Synthetic.reading(heading: 90, pitch: 0, roll: 0)
        let firstOutput = pipeline.process(timestamp: 0, accel: reading.accel, mag: reading.mag)
        let first = try #require(firstOutput)
        #expect(!first.interference)
    }

    @Test("the first implausible sample is flagged at once, and the flag clears when the field is plausible again")
    func flagFollowsTheField() throws {
        var pipeline = HeadingPipeline()
        let strong = Synthetic.reading(heading: 0, pitch: 0, roll: 0, field: Synthetic.earthField * 2)
        let firstOutput = pipeline.process(timestamp: 0, accel: strong.accel, mag: strong.mag)
        let first = try #require(firstOutput)
        #expect(first.interference)
        let normal = Synthetic.reading(heading: 0, pitch: 0, roll: 0)
        var out = first
        for i in 1...200 {
            let next = pipeline.process(timestamp: Double(i) * 0.02, accel: normal.accel, mag: normal.mag)
            out = try #require(next)
        }
        #expect(!out.interference)
    }

    @Test("with a calibration the strength is checked after it, and a deviation from the expected still counts")
    func calibratedPath() throws {
        let reading = Synthetic.reading(heading: 90, pitch: 0, roll: 0)
        // A hard iron along the field: the raw reading is about 98 µT, the corrected one 48 µT, as expected.
        let hardIron = reading.mag * (50 / reading.mag.norm)
        let calibration = Calibration(
            hardIron: hardIron, quality: 0.9, coverage: 0.9, fitResidual: 0.3, fieldStrength: 48, model: .sphere)
        var pipeline = HeadingPipeline(calibration: calibration)
        pipeline.expectedFieldStrength = 48
        #expect((reading.mag + hardIron).norm > 80)
        var out: HeadingPipeline.Output?
        for i in 0..<100 {
            out = pipeline.process(timestamp: Double(i) * 0.02, accel: reading.accel, mag: reading.mag + hardIron)
        }
        #expect(abs(try #require(out).smoothedFieldStrength - 48) < 1e-6)
        #expect(try !#require(out).interference)
        // 1.3 × 48 ≈ 62 µT is plausible anywhere but 30% off the expected: the calibrated detector flags it.
        for i in 100..<300 {
            out = pipeline.process(
                timestamp: Double(i) * 0.02, accel: reading.accel, mag: reading.mag * 1.3 + hardIron)
        }
        let flagged = try #require(out)
        #expect(flagged.smoothedFieldStrength > 15 && flagged.smoothedFieldStrength < 80)
        #expect(flagged.interference)
    }

    @Test("the calibration guidance before calibration asks to move away from metal or calibrate")
    func guidance() {
        var fitter = CalibrationFitter()
        #expect(fitter.state == .uncalibrated)
        #expect(fitter.message(interference: false) == fitter.message)
        let text = fitter.message(interference: true)
        #expect(text == CalibrationFitter.interferenceMessage)
        #expect(text.contains("metal") && text.contains("calibrate"))
        fitter.start()
        #expect(fitter.state == .calibrating)
        #expect(fitter.showsInterferenceMessage(interference: true))
        #expect(!fitter.showsInterferenceMessage(interference: false))
    }
}
