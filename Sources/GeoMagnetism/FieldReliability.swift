/// How much a magnetic compass can be trusted at a place, from the World Magnetic Model's warning zones.
///
/// Near the magnetic poles the horizontal field that steers a compass becomes weak, so small disturbances
/// swing the heading by many degrees and the model's own declination error grows. The WMM specification
/// defines two zones by the horizontal intensity H; the compass service reports headings there as unreliable.
public enum FieldReliability: Sendable, Hashable {
    /// H ≥ 6,000 nT: a compass works normally.
    case normal
    /// 2,000 nT ≤ H < 6,000 nT: the WMM "caution zone"; compass headings may be degraded.
    case caution
    /// H < 2,000 nT: the WMM "blackout zone"; compass headings are unreliable.
    case blackout

    /// The horizontal intensity in nT below which the caution zone begins.
    public static let cautionThreshold = 6_000.0
    /// The horizontal intensity in nT below which the blackout zone begins.
    public static let blackoutThreshold = 2_000.0

    /// Classifies a horizontal intensity in nT.
    ///
    /// - Parameter horizontalIntensity: H in nT. NaN is classified as ``blackout``, since no heading can be
    ///   trusted from an undefined field.
    public init(horizontalIntensity: Double) {
        if !(horizontalIntensity >= Self.blackoutThreshold) {
            self = .blackout
        } else if horizontalIntensity < Self.cautionThreshold {
            self = .caution
        } else {
            self = .normal
        }
    }
}
