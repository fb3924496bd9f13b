/// The publish-rate limit of one device's heading, as a pure state machine in sample time.
///
/// At most one message per ``interval`` seconds of sample time. A change that arrives inside the
/// window is held, not dropped: ``deadline`` says when the window ends, and the service's timer
/// calls ``expire(at:)`` then, so the retained heading is never more than one window behind even
/// when the device stops sending. Time is injected, so the machine is tested as a plain value.
public struct HeadingRateLimiter: Sendable, Hashable {
    /// What to do with a change offered to the limiter.
    public enum Decision: Sendable, Hashable {
        /// Publish now; a new window starts.
        case publish
        /// Hold the change until the window ends at the given sample time.
        case hold(until: Double)
        /// Nothing to publish (the state is within the dead band of what was published).
        case idle
    }

    /// The shortest sample-time interval between two publications, in seconds.
    public let interval: Double
    /// The sample time at which the current window started (the last publication), if any.
    public private(set) var windowStart: Double?
    /// Whether a change is held for the end of the window.
    public private(set) var isHolding = false

    /// Creates a limiter with no window open.
    /// - Parameter interval: Seconds of sample time between publications (1 / max rate).
    public init(interval: Double) {
        self.interval = interval
    }

    /// The sample time at which a held change is due, or nil when nothing is held.
    public var deadline: Double? {
        guard isHolding, let windowStart else { return nil }
        return windowStart + interval
    }

    /// Offers the state at a sample time.
    /// - Parameters:
    ///   - time: The sample time in seconds.
    ///   - changed: Whether the state differs from the last publication by more than the dead band.
    /// - Returns: Whether to publish now, hold, or do nothing. A state back within the dead band
    ///   drops a held change.
    public mutating func offer(at time: Double, changed: Bool) -> Decision {
        guard changed else {
            isHolding = false
            return .idle
        }
        // A sample slightly older than the window start (the timer's estimate of sample time ran
        // ahead of the device) belongs to the window; one far older is a clock step back and
        // opens a new window.
        if let windowStart, time - windowStart < interval, windowStart - time < max(1, 10 * interval) {
            isHolding = true
            return .hold(until: windowStart + interval)
        }
        windowStart = time
        isHolding = false
        return .publish
    }

    /// Called by the timer: whether a held change is due at a sample time. When it is, the
    /// publication is recorded at the window's end, which starts the next window.
    /// - Parameter time: The (estimated) current sample time.
    public mutating func expire(at time: Double) -> Bool {
        guard let deadline, time >= deadline else { return false }
        windowStart = deadline
        isHolding = false
        return true
    }

    /// Records a publication made outside the limit (a status change), which starts a window.
    /// - Parameter time: Its sample time.
    public mutating func recordPublication(at time: Double) {
        windowStart = time
        isHolding = false
    }

    /// Drops a held change (the device went stale, or a publication made it obsolete).
    public mutating func cancel() {
        isHolding = false
    }
}
