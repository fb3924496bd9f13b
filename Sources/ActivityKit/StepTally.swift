/// The contract's rules for cumulative step counts (`stepcompass/{device}/steps`), as a value.
///
/// A device reports the cumulative count of its current session. The tally keeps the last reported count and the
/// device's total across sessions:
///
/// - the first count ever seen adds in full (a first message of 37 means 37 steps);
/// - a higher count adds its difference to the last one;
/// - a repeated count adds nothing (a redelivered QoS 1 message changes nothing);
/// - a lower count starts a new session, whose count adds from zero.
///
/// Both stores persist this value in the same transaction as the step rows it produced, so a restart, a broker
/// restart or a redelivered message never counts a step twice, and a later count restores any step lost with a
/// message that was never applied.
public struct StepTally: Sendable, Hashable, Codable {
    /// The last count the device reported; nil before its first message.
    public var lastCount: Int64?
    /// Steps counted across every session.
    public var total: Int64

    public init(lastCount: Int64? = nil, total: Int64 = 0) {
        self.lastCount = lastCount
        self.total = total
    }

    /// What one count does to the tally.
    public enum Change: Sendable, Hashable {
        /// The first count of the device, or a higher one in the same session: `delta` new steps.
        case more(delta: Int64)
        /// A lower count: a new session, whose count is all new steps.
        case newSession(delta: Int64)
        /// The same count again: nothing.
        case repeated

        /// The new steps.
        public var delta: Int64 {
            switch self {
            case .more(let delta), .newSession(let delta): delta
            case .repeated: 0
            }
        }

        /// Whether the count continues the same session as the last one (not a first count, not a new session).
        public var continuesSession: Bool {
            if case .newSession = self { return false }
            return true
        }
    }

    /// What `count` would do, without applying it.
    /// - Parameter count: A cumulative count (non-negative).
    public func change(for count: Int64) -> Change {
        guard let lastCount else { return .more(delta: count) }
        if count == lastCount { return .repeated }
        if count < lastCount { return .newSession(delta: count) }
        return .more(delta: count - lastCount)
    }

    /// Applies a reported cumulative count.
    /// - Parameter count: A cumulative count (non-negative).
    /// - Returns: What it changed; its ``Change/delta`` is the number of new steps.
    @discardableResult
    public mutating func apply(_ count: Int64) -> Change {
        let change = change(for: count)
        lastCount = count
        total += change.delta
        return change
    }
}
