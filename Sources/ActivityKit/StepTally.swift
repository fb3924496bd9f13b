import StepCompassContract

/// The contract's rules for cumulative step counts (`stepcompass/{device}/steps`), as a value.
///
/// A device reports the cumulative count of its current session. The tally keeps the last reported count, the
/// counts of the session applied most recently, and the device's total across sessions:
///
/// - the first count ever seen adds in full (a first message of 37 means 37 steps);
/// - a higher count adds its difference to the last one;
/// - a repeated count adds nothing (a redelivered QoS 1 message changes nothing);
/// - a lower count stamped no later than the last count applied adds nothing either: it is a redelivery. After a
///   crash or a lost connection a broker sends again every QoS 1 message it holds no acknowledgement for, and those
///   can be messages the service had already stored (the acknowledgement was still on its way); a broker killed
///   before it saved its sessions comes back with an older save and sends again everything queued since, hundreds
///   of messages per device. Without this rule the first of them would read as a new session and count the whole
///   session twice (``StepCountOrder``, which the position service applies too);
/// - a lower count that is one of the session's recent counts is a redelivery too, whatever its time (a message
///   without a timestamp is stamped when it is received, so its redelivery looks newer);
/// - any other lower count starts a new session, whose count adds from zero.
///
/// A new session whose first count happens to equal a recent count of the old one is taken for a redelivery until
/// its next count, which then adds from zero (nothing is lost unless the session ends on such counts). A device whose
/// clock goes back between two sessions has its new session's lower counts ignored until they pass the old time.
///
/// Both stores persist this value in the same transaction as the step rows it produced, so a restart, a broker
/// restart or a redelivered message never counts a step twice, and a later count restores any step lost with a
/// message that was never applied.
public struct StepTally: Sendable, Hashable {
    /// Steps counted across every session.
    public var total: Int64
    /// The session's counts applied most recently, oldest first, at most ``recentLimit``; the last is ``lastCount``.
    public private(set) var recent: [Int64]

    /// The last count the device reported; nil before its first message.
    public var lastCount: Int64? { recent.last }
    /// The latest time of a count applied (seconds since 1970; nil when none carried one).
    public private(set) var lastTime: Double?

    /// How many of a session's counts ``recent`` keeps: more than a broker redelivers to one device in practice
    /// (the messages between the last acknowledgement that reached it and a crash).
    public static let recentLimit = 64

    /// A tally from its session's recent counts (the last ``recentLimit`` are kept; none before a first message) and
    /// the latest time of a count applied.
    public init(total: Int64 = 0, recent: [Int64] = [], lastTime: Double? = nil) {
        self.total = total
        self.recent = Array(recent.suffix(Self.recentLimit))
        self.lastTime = lastTime
    }

    /// A tally that knows only its last count, which stands in as the one recent count.
    public init(lastCount: Int64?, total: Int64, lastTime: Double? = nil) {
        self.init(total: total, recent: lastCount.map { [$0] } ?? [], lastTime: lastTime)
    }

    /// What one count does to the tally.
    public enum Change: Sendable, Hashable {
        /// The first count of the device, or a higher one in the same session: `delta` new steps.
        case more(delta: Int64)
        /// A lower count that is not a redelivery: a new session, whose count is all new steps.
        case newSession(delta: Int64)
        /// The same count again: nothing.
        case repeated
        /// A lower count the session has already had (a message delivered again): nothing.
        case redelivered

        /// The new steps.
        public var delta: Int64 {
            switch self {
            case .more(let delta), .newSession(let delta): delta
            case .repeated, .redelivered: 0
            }
        }

        /// Whether the count continues the same session as the last one (not a first count, not a new session).
        public var continuesSession: Bool {
            if case .newSession = self { return false }
            return true
        }
    }

    /// What `count` would do, without applying it.
    /// - Parameters:
    ///   - count: A cumulative count (non-negative).
    ///   - time: The message's time (seconds since 1970), if known.
    public func change(for count: Int64, at time: Double? = nil) -> Change {
        guard let lastCount else { return .more(delta: count) }
        if count == lastCount { return .repeated }
        if count < lastCount {
            if recent.contains(count) { return .redelivered }
            if let time, let lastTime, StepCountOrder.isRedelivery(count: count, at: time, lastCount: lastCount, lastTime: lastTime) {
                return .redelivered
            }
            return .newSession(delta: count)
        }
        return .more(delta: count - lastCount)
    }

    /// Applies a reported cumulative count.
    /// - Parameters:
    ///   - count: A cumulative count (non-negative).
    ///   - time: The message's time (seconds since 1970), if known.
    /// - Returns: What it changed; its ``Change/delta`` is the number of new steps.
    @discardableResult
    public mutating func apply(_ count: Int64, at time: Double? = nil) -> Change {
        let change = change(for: count, at: time)
        // An old message leaves everything as it was, its time too.
        if change == .redelivered { return change }
        if let time { lastTime = max(lastTime ?? time, time) }
        switch change {
        case .repeated, .redelivered:
            return change
        case .newSession:
            recent = [count]
        case .more:
            if recent.count >= Self.recentLimit { recent.removeFirst(recent.count - Self.recentLimit + 1) }
            recent.append(count)
        }
        total += change.delta
        return change
    }
}
