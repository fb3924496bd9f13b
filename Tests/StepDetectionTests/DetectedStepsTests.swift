import Foundation
import StepDetection
import Testing

@Suite("Step length model and detector configuration")
struct StepLengthModelTests {
    @Test("Weinberg: K · range^(1/4) · scale, clamped")
    func weinberg() {
        let model = StepLengthModel()
        #expect(abs(model.length(accelerationRange: 3.5) - 0.51 * pow(3.5, 0.25)) < 1e-12)
        #expect(abs(model.length(accelerationRange: 3.5) - 0.7) < 0.01)
        #expect(model.length(accelerationRange: 0) == 0.3)
        #expect(model.length(accelerationRange: 1_000) == 1.2)
        var scaled = model
        scaled.scale = 0.9
        #expect(abs(scaled.length(accelerationRange: 3.5) - 0.9 * model.length(accelerationRange: 3.5)) < 1e-12)
    }

    @Test("Confirmation steps are clamped to what one result can hold")
    func confirmationClamp() {
        #expect(StepDetectorConfiguration(confirmationSteps: 50).confirmationSteps == DetectedSteps.capacity)
        #expect(StepDetectorConfiguration(confirmationSteps: 0).confirmationSteps == 2)
    }

    @Test("Walking is confirmed with the steps that led to it, released at once but the last, held for the next step")
    func retroactiveRelease() {
        let recording = SimulatedRecording.walk(carry: .hand, rate: 100, cadence: 1.8, gapCount: 0, seed: 9)
        var detector = StepDetector()
        var first: DetectedSteps?
        for sample in recording.samples {
            let released = detector.add(time: sample.time, acceleration: sample.acceleration)
            if !released.isEmpty && first == nil { first = released }
        }
        #expect(first?.count == StepDetectorConfiguration.defaults.confirmationSteps - 1)
        #expect(first.map { abs($0[0].time - recording.stepTimes[0]) < 0.3 } == true)
    }
}
