import CompassKit
import Foundation
import StepCompassTesting
import Testing

@Suite struct SmoothingTests {
    @Test func firstSampleSetsTheFilter() {
        var smoother = CircularSmoother(timeConstant: 0.25)
        #expect(smoother.value == nil)
        #expect(abs(smoother.update(123, at: 100) - 123) < 1e-9)
        var lowPass = VectorLowPass(timeConstant: 1)
        #expect(lowPass.update(Vector3(1, 2, 3), at: 5) == Vector3(1, 2, 3))
    }

    @Test func wrapAtNorthGivesNorthNotSouth() {
        var smoother = CircularSmoother(timeConstant: 0.25)
        smoother.update(359, at: 0)
        let value = smoother.update(1, at: 0.25)
        #expect(abs(Angle.difference(from: 0, to: value)) < 1)
        for i in 0..<100 { smoother.update(i.isMultiple(of: 2) ? 358 : 2, at: 0.3 + Double(i) * 0.02) }
        #expect(abs(Angle.difference(from: 0, to: smoother.value ?? 180)) < 2)
    }

    @Test func halfLifeIsTauLnTwoWhateverTheSampleRate() {
        let tau = 0.8
        let halfLife = tau * log(2.0)
        for steps in [1, 7, 100] {
            var lowPass = VectorLowPass(timeConstant: tau)
            lowPass.update(.zero, at: 10)
            var value = Vector3.zero
            for step in 1...steps {
                value = lowPass.update(Vector3(1, 0, 0), at: 10 + halfLife * Double(step) / Double(steps))
            }
            #expect(abs(value.x - 0.5) < 1e-12, "\(steps) steps")
        }
        // On the circle: half-way from 0° to 90° in vector terms is 45°.
        var smoother = CircularSmoother(timeConstant: tau)
        smoother.update(0, at: 0)
        for step in 1...50 { smoother.update(90, at: halfLife * Double(step) / 50) }
        #expect(abs((smoother.value ?? 0) - 45) < 1e-9)
    }

    @Test func sameTimestampHoldsAndBackwardsOrLongGapResets() {
        var smoother = CircularSmoother(timeConstant: 1, maxGap: 5)
        smoother.update(10, at: 100)
        #expect(abs(smoother.update(200, at: 100) - 10) < 1e-9)
        #expect(abs(smoother.update(200, at: 99) - 200) < 1e-9)
        smoother.update(300, at: 99.1)
        #expect(abs(smoother.update(50, at: 200) - 50) < 1e-9)
        var lowPass = VectorLowPass(timeConstant: 1, maxGap: 2)
        lowPass.update(Vector3(1, 1, 1), at: 0)
        #expect(lowPass.update(Vector3(5, 5, 5), at: 3) == Vector3(5, 5, 5))
    }

    @Test func zeroTimeConstantDoesNotSmooth() {
        var smoother = CircularSmoother(timeConstant: 0)
        smoother.update(10, at: 0)
        #expect(abs(smoother.update(250, at: 0.01) - 250) < 1e-9)
    }

    @Test func resultantLengthMeasuresScatter() {
        var steady = CircularSmoother(timeConstant: 1)
        var noisy = CircularSmoother(timeConstant: 1)
        var rng = SeededGenerator(seed: 7)
        for i in 0..<500 {
            let t = Double(i) * 0.02
            steady.update(90, at: t)
            noisy.update(90 + 10 * rng.nextGaussian(), at: t)
        }
        #expect(steady.circularStandardDeviation < 1e-3)
        #expect(noisy.circularStandardDeviation > 5 && noisy.circularStandardDeviation < 15)
    }
}
