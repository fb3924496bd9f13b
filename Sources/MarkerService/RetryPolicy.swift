/// Exponential backoff with jitter for failed fetches: `base`, doubling per failure, capped at
/// `maximum`, then scaled by a random factor in 0.5...1 ("equal jitter").
///
/// Jitter keeps a fleet of restarted services from hammering the source in step; the lower half
/// is kept so the delay still grows with each failure.
struct RetryPolicy: Sendable {
    var base: Duration
    var maximum: Duration

    /// The delay before retry number `failures` (1 for the first failure).
    func delay<G: RandomNumberGenerator>(afterFailures failures: Int, using generator: inout G) -> Duration {
        let ceiling = ceilingDelay(afterFailures: failures)
        return ceiling * Double.random(in: 0.5...1, using: &generator)
    }

    /// The delay before jitter.
    func ceilingDelay(afterFailures failures: Int) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        let raw = base * (1 << exponent)
        return min(raw, maximum)
    }
}
