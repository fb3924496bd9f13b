/// The outcome of reading a marker document: what was accepted and what was not.
///
/// Rejections are data, not errors: the status topic publishes their count, and a service
/// keeps running on the accepted markers.
public struct DecodeReport: Sendable, Hashable {
    /// Accepted markers, in source order, ids unique.
    public var accepted: [Marker]
    /// Rejected features, in source order.
    public var rejected: [Rejection]

    public init(accepted: [Marker], rejected: [Rejection]) {
        self.accepted = accepted
        self.rejected = rejected
    }

    /// How many features were rejected for each reason (reasons with none are absent).
    public var countsByReason: [RejectionReason: Int] {
        var counts: [RejectionReason: Int] = [:]
        for rejection in rejected {
            counts[rejection.reason, default: 0] += 1
        }
        return counts
    }

    /// The number of elements in the source's `features` array.
    public var featureCount: Int { accepted.count + rejected.count }
}
