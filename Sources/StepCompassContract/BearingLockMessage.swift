/// The payload of `stepcompass/{device}/bearing-lock` (retained). Written by the compass (which also reads its own
/// retained message back after a restart), read by the dashboard and the client.
///
/// When unlocked, `bearing` and `deviation` are null and `exceeded` false; `deviation` is also null while locked
/// before any heading is known. The compass writes every field; readers need only `locked` and check what else they
/// use.
public struct BearingLockMessage: Codable, Sendable, Hashable {
    /// Whether a bearing is locked.
    public var locked: Bool
    /// The locked bearing in degrees.
    public var bearing: Double?
    /// The signed smallest angle from the bearing to the heading, (-180, 180].
    public var deviation: Double?
    /// The threshold in degrees (the compass's default is 10).
    public var threshold: Double?
    /// Whether the deviation's magnitude passes the threshold.
    public var exceeded: Bool?

    public init(locked: Bool, bearing: Double? = nil, deviation: Double? = nil, threshold: Double? = nil, exceeded: Bool? = nil) {
        self.locked = locked
        self.bearing = bearing
        self.deviation = deviation
        self.threshold = threshold
        self.exceeded = exceeded
    }

    enum CodingKeys: String, CodingKey {
        case locked, bearing, deviation, threshold, exceeded
    }

    /// Encodes every field, unknown ones as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(locked, forKey: .locked)
        try container.encode(bearing, forKey: .bearing)
        try container.encode(deviation, forKey: .deviation)
        try container.encode(threshold, forKey: .threshold)
        try container.encode(exceeded, forKey: .exceeded)
    }
}
