/// A sensor permission of `stepcompass/{device}/permissions` (`motion`, `location`), as the contract spells it:
/// read by the compass (`motion`) and the journal (`location`).
public enum SensorPermission: String, Sendable, Hashable, Codable, CaseIterable {
    case authorized, denied, notDetermined, restricted, unavailable

    /// Parses a permission field.
    /// - Parameters:
    ///   - text: The field's value.
    ///   - field: The field's name, for the message (`motion`, `location`).
    /// - Throws: ``InputError`` naming the field and the allowed values.
    public static func parse(_ text: String, field: String) throws(InputError) -> SensorPermission {
        guard let value = SensorPermission(rawValue: text) else {
            throw InputError(
                "'\(field)' is '\(text.prefix(40))'; expected authorized, denied, notDetermined, restricted or unavailable")
        }
        return value
    }
}
