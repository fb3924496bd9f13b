/// The payload of `{device}/bearing-lock`, retained.
///
/// When unlocked, `bearing` and `deviation` are null and `exceeded` false; `deviation` is also
/// null while locked before any heading is known.
public struct BearingLockMessage: Codable, Sendable, Hashable {
    public var locked: Bool
    public var bearing: Double?
    public var deviation: Double?
    public var threshold: Double
    public var exceeded: Bool

    enum CodingKeys: String, CodingKey {
        case locked, bearing, deviation, threshold, exceeded
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(locked, forKey: .locked)
        try container.encode(bearing, forKey: .bearing)
        try container.encode(deviation, forKey: .deviation)
        try container.encode(threshold, forKey: .threshold)
        try container.encode(exceeded, forKey: .exceeded)
    }
}
