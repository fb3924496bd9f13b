/// The reference of a published heading (the contract's `north` and the `cmd/settings` value).
public enum NorthReference: String, Sendable, Hashable, Codable, CaseIterable {
    /// True (geographic) north: magnetic heading plus declination.
    case `true`
    /// Magnetic north, as the sensor sees it.
    case magnetic
}
