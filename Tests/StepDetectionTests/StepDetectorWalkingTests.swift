import StepDetection
import Testing

@Suite("Step detector on simulated walks")
struct StepDetectorWalkingTests {
    static let rates: [Double] = [50, 100, 200]

    @Test(
        "Every carry at every rate counts within 5 % or 2 steps, and within 2 % overall",
        arguments: Carry.allCases)
    func countsEveryCarry(carry: Carry) {
        var totalTruth = 0
        var totalError = 0
        for (index, rate) in Self.rates.enumerated() {
            let cadence = [1.4, 1.8, 2.2][index]
            let seed = UInt64(index * 31 + carry.rawValue.count * 7 + 1)
            let recording = SimulatedRecording.walk(carry: carry, rate: rate, cadence: cadence, seed: seed)
            let (detector, steps) = SimulatedRecording.detect(recording.samples)
            let truth = recording.visibleSteps
            let error = abs(detector.steps - truth)
            #expect(steps.count == detector.steps)
            #expect(
                Double(error) <= max(2, 0.05 * Double(truth)),
                "\(carry) at \(rate) Hz, \(cadence) steps/s: counted \(detector.steps) of \(truth)"
            )
            totalTruth += truth
            totalError += error
        }
        #expect(Double(totalError) <= 0.02 * Double(totalTruth) + 1, "\(carry): \(totalError) of \(totalTruth)")
    }

    @Test("Steps come in time order, one per heel strike, within a fraction of a step of it")
    func stepTimesMatchHeelStrikes() throws {
        let recording = SimulatedRecording.walk(carry: .texting, rate: 100, cadence: 1.8, gapCount: 0, seed: 5)
        let (_, steps) = SimulatedRecording.detect(recording.samples)
        #expect(steps.count == recording.stepTimes.count)
        for (step, strike) in zip(steps, recording.stepTimes) {
            #expect(step.time > strike - 0.1 && step.time < strike + 0.3, "step at \(step.time), strike \(strike)")
        }
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.time < $1.time })
    }

    @Test("Step lengths are sane and a hand-held walk gives about 0.7 m")
    func stepLengths() {
        for carry in Carry.allCases {
            let recording = SimulatedRecording.walk(carry: carry, rate: 100, cadence: 1.8, seed: 11)
            let (detector, steps) = SimulatedRecording.detect(recording.samples)
            #expect(steps.allSatisfy { $0.length >= 0.3 && $0.length <= 1.2 }, "\(carry)")
            let mean = detector.distance / Double(max(detector.steps, 1))
            #expect(mean > 0.45 && mean < 1.0, "\(carry): mean step \(mean) m")
        }
        let hand = SimulatedRecording.walk(carry: .hand, rate: 100, cadence: 1.8, seed: 12)
        let (detector, _) = SimulatedRecording.detect(hand.samples)
        let mean = detector.distance / Double(detector.steps)
        #expect(abs(mean - 0.7) < 0.1, "hand-held mean step \(mean) m")
    }

    @Test("A faster walk gives longer steps")
    func lengthGrowsWithCadence() {
        let slow = SimulatedRecording.walk(carry: .texting, rate: 100, cadence: 1.4, gapCount: 0, seed: 21)
        let fast = SimulatedRecording.walk(carry: .texting, rate: 100, cadence: 2.2, gapCount: 0, seed: 21)
        let slowMean = SimulatedRecording.detect(slow.samples).detector.distance / Double(slow.stepTimes.count)
        let fastMean = SimulatedRecording.detect(fast.samples).detector.distance / Double(fast.stepTimes.count)
        #expect(fastMean > slowMean * 1.05)
    }

    @Test("The per-device scale multiplies every length")
    func scaleFactor() {
        let recording = SimulatedRecording.walk(carry: .hand, rate: 100, cadence: 1.8, gapCount: 0, seed: 3)
        let plain = SimulatedRecording.detect(recording.samples).detector
        var model = StepLengthModel()
        model.scale = 1.1
        let scaled = SimulatedRecording.detect(
            recording.samples, configuration: StepDetectorConfiguration(stepLength: model)
        ).detector
        #expect(scaled.steps == plain.steps)
        #expect(abs(scaled.distance - plain.distance * 1.1) < 1e-6 * plain.distance + 1e-9)
    }

    @Test("A gap in the samples neither crashes nor adds steps, and counting resumes after it")
    func gapRecovery() {
        let recording = SimulatedRecording.walk(carry: .pocket, rate: 100, cadence: 1.8, gapCount: 0, seed: 8)
        // Cut 1 s out of the middle of the walk.
        let cut = recording.samples.filter { $0.time < 30 || $0.time > 31 }
        var detector = StepDetector()
        var before = 0
        for sample in cut {
            let released = detector.add(time: sample.time, acceleration: sample.acceleration)
            if sample.time <= 31.05 { before += released.count }
        }
        let truthBefore = recording.stepTimes.filter { $0 < 30 }.count
        let truthAfter = recording.stepTimes.filter { $0 > 31 }.count
        #expect(abs(before - truthBefore) <= 2, "before the gap \(before) of \(truthBefore)")
        #expect(abs((detector.steps - before) - truthAfter) <= 2, "after \(detector.steps - before) of \(truthAfter)")
        #expect(detector.steps <= truthBefore + truthAfter)
    }

    @Test("Reset forgets the count")
    func reset() {
        let recording = SimulatedRecording.walk(carry: .hand, rate: 100, cadence: 1.8, gapCount: 0, seed: 2)
        var (detector, _) = SimulatedRecording.detect(recording.samples)
        #expect(detector.steps > 0)
        detector.reset()
        #expect(detector.steps == 0 && detector.distance == 0 && !detector.isWalking)
    }
}
