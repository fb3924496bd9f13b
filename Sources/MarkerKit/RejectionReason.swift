/// Why one feature of the source was left out. The raw value is a stable code for logs and
/// the status topic; ``summary`` is the wording for people.
///
/// Reasons carry no payload so that ``DecodeReport/countsByReason`` groups them; the
/// per-feature detail (which geometry type, which value) is in ``Rejection/message``.
public enum RejectionReason: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The array element is not a JSON object.
    case notAnObject
    /// The object has a `type` other than `"Feature"` (a missing `type` is tolerated).
    case notAFeature
    /// No `id` on the feature, nor `properties.id` as a fallback.
    case missingID
    /// The id is neither a string nor a finite number, or it is the empty string.
    case invalidID
    /// An earlier accepted feature already has this id (the first one wins).
    case duplicateID
    /// `"geometry": null` (valid GeoJSON for an unlocated feature, but it cannot be a marker).
    case nullGeometry
    /// No `geometry` member.
    case missingGeometry
    /// A geometry other than `Point` (LineString, Polygon, ...).
    case nonPointGeometry
    /// `coordinates` missing or not an array of two or three numbers.
    case invalidCoordinates
    /// A coordinate is NaN or infinite (e.g. `1e999`, or Python's `NaN`).
    case nonFiniteCoordinate
    /// Latitude outside -90...90 or longitude outside -180...180.
    case coordinateOutOfRange
    /// `"properties": null`.
    case nullProperties
    /// No `name` property, a name that is not a string, or one that is blank once trimmed.
    case missingName

    public var summary: String {
        switch self {
        case .notAnObject: "feature is not a JSON object"
        case .notAFeature: "type is not \"Feature\""
        case .missingID: "missing id"
        case .invalidID: "invalid id"
        case .duplicateID: "duplicate id"
        case .nullGeometry: "geometry is null"
        case .missingGeometry: "missing geometry"
        case .nonPointGeometry: "geometry is not a Point"
        case .invalidCoordinates: "invalid coordinates"
        case .nonFiniteCoordinate: "coordinate is not a finite number"
        case .coordinateOutOfRange: "coordinate out of range"
        case .nullProperties: "properties is null"
        case .missingName: "missing or empty name"
        }
    }

    public var description: String { rawValue }
}
