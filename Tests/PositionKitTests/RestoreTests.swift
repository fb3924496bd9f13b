import PositionKit
import StepCompassTesting
import Testing

/// One input the service can hand the calculator.
private enum Input: CustomStringConvertible {
    case heading(Double)
    case steps(Int)
    case reset

    var description: String {
        switch self {
        case .heading(let degrees): "heading(\(degrees))"
        case .steps(let count): "steps(\(count))"
        case .reset: "reset"
        }
    }
}

@Suite("Restoring a calculator")
struct RestoreTests {
    /// A random but plausible message sequence: rising counts with jumps, repeats, new sessions, resets, headings.
    private func randomInputs(count: Int, using rng: inout SeededGenerator) -> [Input] {
        var inputs: [Input] = []
        var session = 0
        for _ in 0..<count {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<25:
                inputs.append(.heading(Double.random(in: 0..<360, using: &rng)))
            case 25..<80:
                session += Int.random(in: 1...14, using: &rng)
                inputs.append(.steps(session))
            case 80..<88:
                inputs.append(.steps(session))  // a repeat
            case 88..<95:
                session = Int.random(in: 0...12, using: &rng)  // a new session
                inputs.append(.steps(session))
            default:
                inputs.append(.reset)
            }
        }
        return inputs
    }

    private func apply(_ input: Input, to calculator: inout PositionCalculator) throws -> [PositionState] {
        switch input {
        case .heading(let degrees): try calculator.applyHeading(degrees)
        case .steps(let count): try calculator.applySteps(count)
        case .reset: [calculator.reset()]
        }
    }

    @Test("Restore from the retained message, then continue, equals an uninterrupted run", arguments: 0..<300)
    func restoreEqualsUninterrupted(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 1)
        let inputs = randomInputs(count: Int.random(in: 1...80, using: &rng), using: &rng)
        let stepsPerUpdate = [10, 10, 3, 7].randomElement(using: &rng)!
        let stepLength = [0.75, 0.75, 0.62].randomElement(using: &rng)!

        // The uninterrupted run, remembering what each message published and the heading current after it.
        var uninterrupted = try PositionCalculator(stepsPerUpdate: stepsPerUpdate, stepLength: stepLength)
        var publishedPerInput: [[PositionState]] = []
        var headingAfter: [Double?] = []
        for input in inputs {
            publishedPerInput.append(try apply(input, to: &uninterrupted))
            headingAfter.append(uninterrupted.currentHeading)
        }
        let expected = publishedPerInput.flatMap { $0 }

        // The service stops while handling message `crash`: it published `published` of that message's states
        // (all of them, or, when it published several, possibly only some). A message not fully handled is
        // redelivered (QoS 1); the retained position is the last state published; the retained heading is the
        // latest heading.
        let crash = Int.random(in: 0..<inputs.count, using: &rng)
        let states = publishedPerInput[crash]
        let published = states.count >= 2 && Bool.random(using: &rng) ? Int.random(in: 1..<states.count, using: &rng) : states.count
        let redelivered = published < states.count
        var output = publishedPerInput[..<crash].flatMap { $0 } + states[..<published]
        let retained = output.last
        let latestHeading = headingAfter[crash]

        var restarted =
            try retained.map {
                try PositionCalculator(restoring: $0, currentHeading: latestHeading, stepsPerUpdate: stepsPerUpdate, stepLength: stepLength)
            } ?? PositionCalculator(stepsPerUpdate: stepsPerUpdate, stepLength: stepLength)
        if retained == nil, let heading = latestHeading { output += try restarted.applyHeading(heading) }
        output += restarted.applyPendingBatches()
        for input in inputs[(redelivered ? crash : crash + 1)...] { output += try apply(input, to: &restarted) }

        #expect(output == expected, "inputs: \(inputs), crash in \(crash) after \(published) of \(states.count) states")
        #expect(restarted.state == uninterrupted.state)
    }

    @Test("A restart between two batches of one message publishes the missing batch once")
    func restartBetweenBatches() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(30)
        let states = try calculator.applySteps(27)
        var restarted = try PositionCalculator(restoring: states[0], currentHeading: 30)
        #expect(restarted.pendingBatches == 1)
        #expect(restarted.applyPendingBatches() == [states[1]])
        #expect(try restarted.applySteps(27).isEmpty)  // the redelivered message is a repeat
        #expect(restarted == calculator)
    }

    @Test("Restoring without a current heading falls back to the last batch's heading")
    func fallbackHeading() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(90)
        let retained = try #require(try calculator.applySteps(14).last)
        var restored = try PositionCalculator(restoring: retained)
        #expect(restored.currentHeading == 90)
        #expect(try restored.applySteps(20) == calculator.applySteps(20))
    }
}
