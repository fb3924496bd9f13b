import Bus
import Foundation

/// What `position-load` sent and what came back: the send time of each (device, step total), and the latency of
/// the first position message that carries that total. Written by the sending thread and the reading thread.
final class PositionAnswers: Sendable {
    private struct State {
        /// Send time by `device * perDevice + steps`; NaN when not sent.
        var sentAt: [Double]
        /// Whether the message was sent after the warm-up.
        var measured: [Bool]
        var answered: [Bool]
        var latencies: [Double] = []
        var sentMeasured = 0
        var sent = 0
        var answeredCount = 0
    }

    private let state: LockedValue<State>
    private let perDevice: Int

    init(devices: Int, perDevice: Int) {
        self.perDevice = perDevice
        let size = devices * perDevice
        state = LockedValue(
            State(
                sentAt: [Double](repeating: .nan, count: size), measured: [Bool](repeating: false, count: size),
                answered: [Bool](repeating: false, count: size)))
    }

    func sent(device: Int, steps: Int, at time: Double, measured: Bool) {
        guard steps < perDevice else { return }
        state.withLock { state in
            let slot = device * perDevice + steps
            state.sentAt[slot] = time
            state.measured[slot] = measured
            state.sent += 1
            if measured { state.sentMeasured += 1 }
        }
    }

    /// A position of `device` with `steps` in all arrived at `time`; repeats and totals never sent are ignored.
    func answer(device: Int, steps: Int, at time: Double) {
        guard steps >= 0, steps < perDevice else { return }
        state.withLock { state in
            let slot = device * perDevice + steps
            guard slot < state.sentAt.count, !state.answered[slot], state.sentAt[slot].isFinite else { return }
            state.answered[slot] = true
            state.answeredCount += 1
            if state.measured[slot] { state.latencies.append(time - state.sentAt[slot]) }
        }
    }

    /// Whether every message sent so far has its answer.
    var allAnswered: Bool { state.withLock { $0.answeredCount >= $0.sent } }

    /// The latencies of the measured messages (sorted), how many were measured, and how many of all went unanswered.
    var figures: (latencies: [Double], sentMeasured: Int, unanswered: Int) {
        state.withLock { ($0.latencies.sorted(), $0.sentMeasured, $0.sent - $0.answeredCount) }
    }

    /// The device index of `prefix/load-<n>/position`, or nil.
    static func device(inTopic topic: ArraySlice<UInt8>) -> Int? { DecimalDigits.number(after: deviceMarker, in: topic) }

    private static let deviceMarker = Array("/load-".utf8)
}
