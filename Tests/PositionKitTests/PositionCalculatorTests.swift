import Foundation
import PositionKit
import Testing

@Suite("PositionCalculator")
struct PositionCalculatorTests {
    private func expectClose(_ a: Double, _ b: Double, tolerance: Double = 1e-9, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(a - b) <= tolerance, "\(a) != \(b)", sourceLocation: sourceLocation)
    }

    @Test("Heading 0° moves north by 7.5 m per batch")
    func north() throws {
        var calculator = try PositionCalculator()
        #expect(try calculator.applyHeading(0).isEmpty)
        let states = try calculator.applySteps(10)
        #expect(states.count == 1)
        let state = try #require(states.last)
        expectClose(state.x, 7.5)
        expectClose(state.y, 0)
        #expect(state.steps == 10)
        #expect(state.sessionSteps == 10)
        expectClose(state.distance, 7.5)
        #expect(state.heading == 0)
        #expect(state.updates == 1)
    }

    @Test("Heading 90° moves east")
    func east() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(90)
        let state = try #require(try calculator.applySteps(20).last)
        expectClose(state.x, 0)
        expectClose(state.y, 15)
        #expect(state.updates == 2)
        expectClose(state.distance, 15)
    }

    @Test("Heading 225° moves south-west, 7.5 m per batch")
    func southWest() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(225)
        let state = try #require(try calculator.applySteps(10).last)
        expectClose(state.x, -7.5 / 2.0.squareRoot())
        expectClose(state.y, -7.5 / 2.0.squareRoot())
        expectClose((state.x * state.x + state.y * state.y).squareRoot(), 7.5)
    }

    @Test("359° then 1°: each batch uses the heading current when it falls due")
    func wrap() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(359)
        let first = try #require(try calculator.applySteps(10).last)
        #expect(first.heading == 359)
        _ = try calculator.applyHeading(1)
        let second = try #require(try calculator.applySteps(20).last)
        #expect(second.heading == 1)
        let radians = Double.pi / 180
        expectClose(second.x, 7.5 * cos(359 * radians) + 7.5 * cos(1 * radians))
        expectClose(second.y, 0, tolerance: 1e-12)
        #expect(second.x > 14.99)
    }

    @Test("Headings are normalised into [0, 360)")
    func normalisation() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(-90)
        #expect(calculator.currentHeading == 270)
        _ = try calculator.applyHeading(360)
        #expect(calculator.currentHeading == 0)
        _ = try calculator.applyHeading(725)
        #expect(calculator.currentHeading == 5)
    }

    @Test("A batch due before any heading waits, then is published when the first heading arrives")
    func waitsForHeading() throws {
        var calculator = try PositionCalculator()
        let early = try calculator.applySteps(23)
        #expect(early.count == 1)
        #expect(early[0].updates == 0)
        #expect(early[0].steps == 23)
        #expect(early[0].heading == nil)
        #expect(early[0].x == 0 && early[0].y == 0)
        #expect(calculator.pendingBatches == 2)
        #expect(calculator.partialSteps == 3)

        let applied = try calculator.applyHeading(90)
        #expect(applied.count == 2)
        #expect(applied.map(\.updates) == [1, 2])
        expectClose(applied[0].y, 7.5)
        expectClose(applied[1].y, 15)
        #expect(applied.allSatisfy { $0.heading == 90 && $0.steps == 23 })
        #expect(calculator.pendingBatches == 0)
        #expect(try calculator.applyHeading(80).isEmpty)
    }

    @Test("A jump of 27 steps publishes two batches and keeps 7 pending")
    func jump() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(0)
        let states = try calculator.applySteps(27)
        #expect(states.count == 2)
        #expect(states.map(\.updates) == [1, 2])
        expectClose(states[0].x, 7.5)
        expectClose(states[1].x, 15)
        #expect(states.allSatisfy { $0.steps == 27 && $0.sessionSteps == 27 })
        expectClose(states[1].distance, 20.25)
        #expect(calculator.partialSteps == 7)
        // Three more steps complete the third batch.
        let next = try calculator.applySteps(30)
        #expect(next.count == 1)
        #expect(next[0].updates == 3)
        expectClose(next[0].x, 22.5)
    }

    @Test("A step message that completes no batch publishes once")
    func noBatch() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(0)
        let states = try calculator.applySteps(4)
        #expect(states.count == 1)
        #expect(states[0].steps == 4)
        #expect(states[0].updates == 0)
        #expect(states[0].heading == nil)
        expectClose(states[0].distance, 3)
    }

    @Test("A first message of 37 means 37 steps")
    func firstMessage() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(0)
        let state = try #require(try calculator.applySteps(37).last)
        #expect(state.steps == 37)
        #expect(state.updates == 3)
    }

    @Test("A repeated count changes nothing and publishes nothing")
    func duplicates() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(0)
        _ = try calculator.applySteps(12)
        let before = calculator
        #expect(try calculator.applySteps(12).isEmpty)
        #expect(try calculator.applySteps(12).isEmpty)
        #expect(calculator == before)
        // A first message of 0 is a repeat of the initial baseline.
        var fresh = try PositionCalculator()
        #expect(try fresh.applySteps(0).isEmpty)
    }

    @Test("A lower count starts a new session whose count adds to the total")
    func newSession() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(0)
        _ = try calculator.applySteps(15)
        let states = try calculator.applySteps(8)
        let state = try #require(states.last)
        #expect(states.count == 1)
        #expect(state.steps == 23)
        #expect(state.sessionSteps == 8)
        #expect(state.updates == 2)
        let more = try #require(try calculator.applySteps(10).last)
        #expect(more.steps == 25)
        // A new session that starts at 0 changes the baseline: it is published so a restart keeps it.
        let zero = try calculator.applySteps(0)
        #expect(zero.count == 1)
        #expect(zero[0].steps == 25 && zero[0].sessionSteps == 0)
        #expect(try calculator.applySteps(4).last?.steps == 29)
    }

    @Test("Reset returns to the origin, drops the partial batch, keeps the baseline")
    func reset() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applyHeading(45)
        _ = try calculator.applySteps(27)
        let reset = calculator.reset()
        #expect(reset.x == 0 && reset.y == 0)
        #expect(reset.steps == 0 && reset.distance == 0 && reset.updates == 0)
        #expect(reset.sessionSteps == 27)
        #expect(calculator.partialSteps == 0)
        // The next count adds only its difference: 8 steps, no batch.
        let after = try calculator.applySteps(35)
        #expect(after.count == 1)
        #expect(after[0].steps == 8 && after[0].updates == 0)
        let batch = try #require(try calculator.applySteps(37).last)
        #expect(batch.steps == 10 && batch.updates == 1)
        expectClose(batch.x, 7.5 * cos(Double.pi / 4))
    }

    @Test("Invalid inputs throw and leave the state unchanged")
    func validation() throws {
        var calculator = try PositionCalculator()
        _ = try calculator.applySteps(5)
        let before = calculator
        #expect(throws: PositionError.negativeStepCount) { try calculator.applySteps(-1) }
        #expect(throws: PositionError.invalidHeading) { try calculator.applyHeading(.nan) }
        #expect(throws: PositionError.invalidHeading) { try calculator.applyHeading(.infinity) }
        #expect(calculator == before)
        #expect(throws: PositionError.invalidConfiguration) { try PositionCalculator(stepsPerUpdate: 0) }
        #expect(throws: PositionError.invalidConfiguration) { try PositionCalculator(stepLength: -1) }
        #expect(throws: PositionError.invalidConfiguration) { try PositionCalculator(stepLength: .nan) }
        _ = try calculator.applySteps(6)
        _ = try calculator.applySteps(2)  // a new session: total 8, baseline 2
        #expect(throws: PositionError.stepOverflow) { try calculator.applySteps(Int.max) }
        let error = PositionError.negativeStepCount
        #expect(error.description.contains("negative"))
    }

    @Test("Restoring rejects impossible states")
    func restoreValidation() throws {
        let tooManyBatches = PositionState(x: 0, y: 0, steps: 19, sessionSteps: 19, distance: 14.25, heading: 0, updates: 2)
        #expect(throws: PositionError.invalidState) { try PositionCalculator(restoring: tooManyBatches) }
        let negative = PositionState(x: 0, y: 0, steps: -1, sessionSteps: 0, distance: 0, heading: nil, updates: 0)
        #expect(throws: PositionError.invalidState) { try PositionCalculator(restoring: negative) }
        let nan = PositionState(x: .nan, y: 0, steps: 0, sessionSteps: 0, distance: 0, heading: nil, updates: 0)
        #expect(throws: PositionError.invalidState) { try PositionCalculator(restoring: nan) }
    }

    @Test("Restoring a state that was waiting for a heading keeps its batches pending")
    func restorePending() throws {
        var original = try PositionCalculator()
        let retained = try #require(try original.applySteps(27).last)
        var restored = try PositionCalculator(restoring: retained)
        #expect(restored.currentHeading == nil)
        #expect(restored.pendingBatches == 2)
        #expect(restored.partialSteps == 7)
        let applied = try restored.applyHeading(180)
        #expect(applied.count == 2)
        expectClose(applied[1].x, -15)
        #expect(try restored.applySteps(33).last?.updates == 3)
    }
}
