/// A device's `bearing-lock` message: the locked bearing and how far the heading is from it.
public struct BearingLockReport: Sendable, Hashable, Decodable {
    public var locked: Bool
    public var bearing: Double?
    /// The signed smallest angle from the bearing to the heading, in (-180, 180].
    public var deviation: Double?
    public var threshold: Double?
    public var exceeded: Bool?

    public init(
        locked: Bool, bearing: Double? = nil, deviation: Double? = nil, threshold: Double? = nil,
        exceeded: Bool? = nil
    ) {
        self.locked = locked
        self.bearing = bearing
        self.deviation = deviation
        self.threshold = threshold
        self.exceeded = exceeded
    }
}
