import Foundation
import StepDetection
import Testing

@Suite("Step detector keeps the first steps after handling the phone")
struct StepDetectorHandlingTests {
    /// A 20-step walk (gap-free) with a handling impulse (putting the phone away, picking it up) `lead` s before the
    /// first heel strike: one 0.3 s sine period of `peak` m/s², mostly along the device z axis.
    static func walkAfterImpulse(carry: Carry, peak: Double, lead: Double, seed: UInt64) -> SimulatedRecording {
        let cadence = 1.8
        var recording = SimulatedRecording.walk(
            carry: carry, rate: 100, cadence: cadence, walking: 20 / cadence - 0.2, gapCount: 0, seed: seed
        )
        let start = recording.stepTimes[0] - lead
        for index in recording.samples.indices {
            let x = (recording.samples[index].time - start) / 0.3
            guard x >= 0 && x <= 1 else { continue }
            let a = peak * sin(2 * Double.pi * x)
            recording.samples[index].acceleration += SIMD3(0.3 * a, 0.2 * a, a)
        }
        return recording
    }

    /// Peak 20...40 m/s² gives a filtered swing of about 3...5.5 times a steady step's and 7...15 times the first
    /// (still weak) step's; leads of one step period, 1 s and 1.5 s. Before the fix up to 3 steps were lost.
    @Test(
        "An impulse of several step swings before a walk costs at most one step",
        arguments: [20.0, 30, 40], [1 / 1.8, 1.0, 1.5])
    func impulseBeforeWalk(peak: Double, lead: Double) {
        for (carry, seed) in [(Carry.hand, UInt64(7)), (.texting, 11), (.pocket, 13)] {
            let recording = Self.walkAfterImpulse(carry: carry, peak: peak, lead: lead, seed: seed)
            let (detector, steps) = SimulatedRecording.detect(recording.samples)
            #expect(steps.count == detector.steps)
            #expect(
                abs(detector.steps - recording.stepTimes.count) <= 1,
                "\(carry), impulse \(peak) m/s² \(lead) s ahead: counted \(detector.steps) of \(recording.stepTimes.count)"
            )
        }
    }

    @Test("Without the impulse the same walks count every step")
    func sameWalksWithoutImpulse() {
        for (carry, seed) in [(Carry.hand, UInt64(7)), (.pocket, 13)] {
            let recording = Self.walkAfterImpulse(carry: carry, peak: 0, lead: 1, seed: seed)
            #expect(SimulatedRecording.detect(recording.samples).detector.steps == recording.stepTimes.count)
        }
    }
}
