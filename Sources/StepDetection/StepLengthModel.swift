/// Weinberg's step-length model: `L = K · (a_max − a_min)^(1/4) · scale`, where `a_max − a_min` is the range
/// (m/s²) of the detector's band-passed acceleration magnitude over the step (the peak that marks the step minus
/// the valley before it).
///
/// `K` is chosen so that an ordinary walk with a hand-held phone (a range of about 3.5 m/s² in the detector's
/// 3 Hz band) gives about 0.7 m: `0.7 / 3.5^(1/4) ≈ 0.51`. People and devices differ: set ``scale`` per device
/// (e.g. measured distance / counted distance on a known walk, or learned from GPS) rather than changing `K`.
public struct StepLengthModel: Sendable, Hashable {
    /// Weinberg's constant, metres per (m/s²)^(1/4).
    public var k: Double
    /// Per-device (or per-person) factor applied to every step; 1 by default.
    public var scale: Double
    /// The shortest length returned, metres.
    public var minimumLength: Double
    /// The longest length returned, metres.
    public var maximumLength: Double

    /// The model with the documented defaults (`k` 0.51, `scale` 1, lengths clamped to 0.3...1.2 m).
    public init(k: Double = 0.51, scale: Double = 1, minimumLength: Double = 0.3, maximumLength: Double = 1.2) {
        self.k = k
        self.scale = scale
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
    }

    /// The length in metres of a step whose band-passed acceleration spans `range` m/s² (max − min).
    public func length(accelerationRange range: Double) -> Double {
        let raw = k * (max(range, 0)).squareRoot().squareRoot() * scale
        return min(max(raw, minimumLength * scale), maximumLength * scale)
    }
}
