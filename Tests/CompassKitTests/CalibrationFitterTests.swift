import CompassKit
import Foundation
import StepCompassTesting
import Testing

@Suite struct CalibrationFitterTests {
    /// Feeds a figure-8 at 50 Hz starting at `start` seconds; returns the next free time.
    @discardableResult
    static func feedFigureEight(
        _ fitter: inout CalibrationFitter, count: Int, start: Double, offset: Vector3 = Synthetic.hardIronOffset,
        seed: UInt64 = 1
    ) -> Double {
        let data = CalibrationFitTests.figureEight(count: count, noise: 0.3, seed: seed)
        var t = start
        for index in data.raw.indices {
            fitter.add(data.raw[index] - Synthetic.hardIronOffset + offset, at: t, gravity: data.accel[index])
            t += 0.02
        }
        return t
    }

    @Test func startsUncalibratedAndCalibratesFromAFigureEight() throws {
        var fitter = CalibrationFitter(expectedFieldStrength: 48, expectedInclination: 64)
        #expect(fitter.state == .uncalibrated)
        #expect(fitter.message.contains("figure-8"))
        #expect(fitter.calibration == nil)
        Self.feedFigureEight(&fitter, count: 30, start: 0)
        #expect(fitter.state == .calibrating)
        Self.feedFigureEight(&fitter, count: 500, start: 10, seed: 2)
        #expect(fitter.state == .calibrated)
        let calibration = try #require(fitter.calibration)
        #expect(calibration.model == .ellipsoid)
        #expect((calibration.hardIron - Synthetic.hardIronOffset).norm < 0.5)
        #expect(calibration.quality > 0.7)
        #expect(calibration.coverage > 0.9)
        #expect(abs(calibration.fieldStrength - 48) < 1e-9)
        #expect(fitter.message == "Compass calibrated.")
    }

    @Test func flatTurnsAloneDoNotCalibrate() {
        var fitter = CalibrationFitter()
        var t = 0.0
        for lap in 0..<3 {
            for heading in stride(from: 0.0, to: 360, by: 2) {
                let r = Synthetic.reading(heading: heading + Double(lap), pitch: 0, roll: 0)
                fitter.add(r.mag + Synthetic.hardIronOffset, at: t, gravity: r.accel)
                t += 0.02
            }
        }
        #expect(fitter.state == .calibrating)
        #expect(fitter.calibration == nil)
        #expect(fitter.coverage < 0.35)
    }

    @Test func gateRejectsInterferenceOnceCalibrated() throws {
        var fitter = CalibrationFitter(expectedFieldStrength: 48, expectedInclination: 64)
        var t = Self.feedFigureEight(&fitter, count: 500, start: 0)
        let before = try #require(fitter.calibration)
        #expect(fitter.isGating)
        // A nearby magnet makes the field 40% stronger: every sample refused, the fit untouched.
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<200 {
            let o = Synthetic.randomOrientation(using: &rng)
            let r = Synthetic.reading(heading: o.heading, pitch: o.pitch, roll: o.roll)
            let raw = Synthetic.softIronDistortion * (r.mag * 1.4) + Synthetic.hardIronOffset
            #expect(fitter.add(raw, at: t, gravity: r.accel) == .rejectedFieldStrength)
            t += 0.02
        }
        #expect(fitter.rejectedCount == 200)
        #expect(fitter.calibration == before)
        #expect(fitter.state == .calibrated)
        // A steady sample with the right strength but the wrong dip (field tilted 30°) is refused too.
        let r = Synthetic.reading(heading: 10, pitch: 0, roll: 0)
        let tilted = Matrix3.rotation(axis: Vector3(1, 0, 0), degrees: 30) * r.mag
        let raw = Synthetic.softIronDistortion * tilted + Synthetic.hardIronOffset
        #expect(fitter.add(raw, at: t, gravity: r.accel) == .rejectedInclination)
        // Clean samples still pass.
        let clean =
            Synthetic.softIronDistortion * Synthetic.reading(heading: 123, pitch: 20, roll: 5).mag
            + Synthetic.hardIronOffset
        #expect(fitter.add(clean, at: t + 1) == .kept)
    }

    @Test func lastingChangeNeedsCalibrationThenRecalibrates() throws {
        var fitter = CalibrationFitter(expectedFieldStrength: 48)
        var t = Self.feedFigureEight(&fitter, count: 500, start: 0)
        #expect(fitter.state == .calibrated)
        // The hard iron moves by 35 µT (a magnetic case): the state says so within 20 s.
        let moved = Synthetic.hardIronOffset + Vector3(0, 35, 0)
        var sawNeedsCalibration = false
        let data = CalibrationFitTests.figureEight(count: 1000, noise: 0.3, seed: 5)
        for index in data.raw.indices {
            fitter.add(data.raw[index] - Synthetic.hardIronOffset + moved, at: t, gravity: data.accel[index])
            t += 0.02
            if fitter.state == .needsCalibration { sawNeedsCalibration = true }
        }
        #expect(sawNeedsCalibration)
        t = Self.feedFigureEight(&fitter, count: 600, start: t, offset: moved, seed: 6)
        #expect(fitter.state == .calibrated)
        let calibration = try #require(fitter.calibration)
        #expect((calibration.hardIron - moved).norm < 0.5)
    }

    @Test func resetForgetsAndStartKeepsTheCalibrationInUse() {
        var fitter = CalibrationFitter()
        Self.feedFigureEight(&fitter, count: 400, start: 0)
        #expect(fitter.calibration != nil)
        fitter.start()
        #expect(fitter.state == .calibrating)
        #expect(fitter.calibration != nil)
        #expect(fitter.sampleCount == 0)
        fitter.reset()
        #expect(fitter.state == .uncalibrated)
        #expect(fitter.calibration == nil)
    }

    @Test func decimatesFastAndRepeatedSamples() {
        var fitter = CalibrationFitter()
        let raw = Vector3(10, 20, 30)
        #expect(fitter.add(raw, at: 0) == .kept)
        #expect(fitter.add(raw + Vector3(10, 0, 0), at: 0.001) == .skipped)
        #expect(fitter.add(raw + Vector3(0.5, 0, 0), at: 1) == .skipped)
        #expect(fitter.add(Vector3(.nan, 0, 0), at: 2) == .invalid)
        #expect(fitter.sampleCount == 1)
    }

    @Test func bufferIsCapped() {
        var configuration = CalibrationFitter.Configuration()
        configuration.maxSamples = 100
        var fitter = CalibrationFitter(configuration: configuration)
        Self.feedFigureEight(&fitter, count: 400, start: 0)
        #expect(fitter.sampleCount == 100)
        #expect(fitter.keptCount == 400)
    }
}
