import CompassKit
import Testing

@Suite struct InterferenceAndAccuracyTests {
    @Test func interferenceHasHysteresis() {
        var detector = InterferenceDetector()
        func update(_ f: Double, _ dip: Double? = 64) -> Bool {
            detector.update(fieldStrength: f, inclination: dip, expectedFieldStrength: 48, expectedInclination: 64)
        }
        #expect(!update(48))
        #expect(!update(54))  // 12.5%: below the 15% that raises it
        #expect(update(60))  // 25%
        #expect(update(54))  // still above the 10% that clears it
        #expect(!update(50))
        #expect(update(48, 75))  // dip 11° off
        #expect(update(48, 70))
        #expect(!update(48, 66))
        #expect(update(120, nil))  // implausible on Earth, whatever is expected
    }

    @Test func accuracyIsWorseUncalibratedDisturbedOrNoisy() {
        let calibration = Calibration(
            hardIron: .zero, quality: 0.9, coverage: 0.9, fitResidual: 0.3, fieldStrength: 48, model: .ellipsoid)
        func estimate(_ calibration: Calibration?, f: Double = 48, noise: Double = 0) -> Double {
            HeadingAccuracy(
                calibration: calibration, fieldStrength: f, horizontalFieldStrength: 21, expectedFieldStrength: 48,
                inclination: 64, expectedInclination: 64, headingNoise: noise, tiltUncertainty: 0,
                accelerationMagnitude: 9.80665
            ).degrees
        }
        let good = estimate(calibration)
        #expect(good >= HeadingAccuracy.minimum && good < 5)
        #expect(estimate(nil) >= 30)
        #expect(estimate(calibration, f: 60) > good + 10)
        #expect(estimate(calibration, noise: 8) > 8)
    }
}
