/// A token bucket that spaces out calls to a rate-limited service: it holds at most ``capacity`` tokens, refills
/// at ``perSecond`` tokens a second, and each call takes one.
///
/// Over any interval of `t` seconds at most `capacity + perSecond × t` tokens can be taken.
public struct TokenBucket: Sendable {
    /// The most tokens the bucket holds (the largest burst).
    public let capacity: Double
    /// Tokens added per second.
    public let perSecond: Double

    private var tokens: Double
    private var updated: Double

    /// A full bucket at `now` (seconds, any clock that only moves forward).
    public init(capacity: Double, perSecond: Double, now: Double) {
        self.capacity = max(0, capacity)
        self.perSecond = max(0, perSecond)
        self.tokens = max(0, capacity)
        self.updated = now
    }

    /// The tokens available at `now`, refilled but not taken.
    public func available(now: Double) -> Double {
        guard now > updated else { return tokens }
        return min(capacity, tokens + (now - updated) * perSecond)
    }

    /// Takes a token at `now` (seconds) and returns 0; when none is available, takes nothing and returns the
    /// seconds until one is (infinity for a bucket that never refills). A `now` earlier than the last call counts
    /// as the last call's time.
    public mutating func take(now: Double) -> Double {
        tokens = available(now: now)
        updated = max(updated, now)
        // A caller that sleeps exactly the returned time, on a clock of limited resolution (seconds since 1970 as a
        // Double), may come back a hair early: a billionth of a token of slack, and a wait too short to move `now`,
        // count as a token, so it is never told to wait a few femtoseconds more, forever. The slack is not repaid
        // by later takes but never accumulates either (the count goes a hair below zero at most).
        if tokens >= 1 - 1e-9 {
            tokens -= 1
            return 0
        }
        guard perSecond > 0 else { return .infinity }
        let wait = (1 - tokens) / perSecond
        if updated + wait <= updated {
            tokens -= 1
            return 0
        }
        return wait
    }

    /// A bucket, full at `now`, that allows at most `calls` takes in any window of 3,600 seconds.
    ///
    /// The burst is `max(1, min(60, calls / 60))` and the rate `(calls − burst) / 3600` per second, so a window can
    /// see the burst plus an hour's refill, which is `calls`. With `calls` of 1 or less the bucket refills one token
    /// every 3,601 seconds (one take per hour, never two in one window).
    public static func perHour(_ calls: Int, now: Double) -> TokenBucket {
        let capacity = max(1, min(60, calls / 60))
        let perSecond = calls > capacity ? Double(calls - capacity) / 3600 : 1.0 / 3601
        return TokenBucket(capacity: Double(capacity), perSecond: perSecond, now: now)
    }
}
