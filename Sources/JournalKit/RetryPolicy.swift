/// Exponential back-off for photo lookups that failed for a temporary reason.
public struct RetryPolicy: Sendable, Equatable {
    /// Seconds to wait after the first failure (default 15).
    public var base: Double = 15
    /// The longest wait, in seconds (default 900, a quarter of an hour).
    public var maximum: Double = 900

    /// A policy waiting `base` seconds after the first failure, doubling up to `maximum` seconds.
    public init(base: Double = 15, maximum: Double = 900) {
        self.base = base
        self.maximum = maximum
    }

    /// Seconds to wait after `attempts` failed attempts (fewer than 1 count as 1): `base × 2^(attempts − 1)`,
    /// capped at ``maximum``, and at least `retryAfter` seconds (the server's `Retry-After`, itself capped at 3,600)
    /// when given.
    public func delay(afterAttempts attempts: Int, retryAfter: Double?) -> Double {
        let exponent = Double(max(attempts, 1) - 1)
        var delay = min(base * pow2(exponent), maximum)
        if !delay.isFinite || delay < 0 { delay = max(0, maximum) }
        if let retryAfter, retryAfter.isFinite, retryAfter > 0 {
            delay = max(delay, min(retryAfter, 3600))
        }
        return delay
    }

    /// 2 to the power `exponent`, infinity when that overflows.
    private func pow2(_ exponent: Double) -> Double {
        exponent >= 1024 ? .infinity : Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }
}
