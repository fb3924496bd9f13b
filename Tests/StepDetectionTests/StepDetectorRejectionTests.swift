import StepDetection
import Testing

@Suite("Step detector counts nothing when nobody walks")
struct StepDetectorRejectionTests {
    @Test("Lying still with noise", arguments: [50.0, 100, 200])
    func lyingStill(rate: Double) {
        let (detector, _) = SimulatedRecording.detect(SimulatedRecording.lyingStill(rate: rate, seed: 1).samples)
        #expect(detector.steps == 0)
    }

    @Test("Picked up and put down", arguments: [50.0, 100, 200])
    func pickUp(rate: Double) {
        let recording = SimulatedRecording.pickUpAndPutDown(rate: rate, seed: 2)
        #expect(SimulatedRecording.detect(recording.samples).detector.steps == 0)
    }

    @Test("Shaken at rest at 3 to 8 Hz, along any axis", arguments: [3.0, 4, 5, 6, 8])
    func shaken(frequency: Double) {
        let directions: [SIMD3<Double>] = [[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 1, 1]]
        for (index, direction) in directions.enumerated() {
            for rate in [50.0, 100, 200] {
                let recording = SimulatedRecording.shaken(
                    rate: rate, frequency: frequency, direction: direction, seed: UInt64(index + 1)
                )
                let steps = SimulatedRecording.detect(recording.samples).detector.steps
                #expect(steps == 0, "\(frequency) Hz along \(direction) at \(rate) Hz: \(steps) steps")
            }
        }
    }

    @Test("Knocks on the table", arguments: [1, 2, 3])
    func knocked(knocks: Int) {
        let recording = SimulatedRecording.knocked(rate: 100, knocks: knocks, seed: 4)
        #expect(SimulatedRecording.detect(recording.samples).detector.steps == 0)
    }

    @Test("Garbage input: non-finite values, time going back, huge gaps")
    func garbage() {
        var detector = StepDetector()
        _ = detector.add(time: 0, acceleration: [0, 0, 9.81])
        _ = detector.add(time: .nan, acceleration: [0, 0, 9.81])
        _ = detector.add(time: 0.01, acceleration: [.infinity, 0, 9.81])
        _ = detector.add(time: -5, acceleration: [0, 0, 9.81])
        _ = detector.add(time: 1_000, acceleration: [0, 0, 30])
        _ = detector.add(time: 1_000.01, acceleration: [0, 0, 9.81])
        #expect(detector.steps == 0)
    }
}
