/// One named point of interest from the marker source.
///
/// Markers are identified only by ``id``: names repeat in real data (GeoNames has eight
/// "Springfield"s), so nothing in MarkerKit is ever keyed by ``name``.
///
/// The id is always a string because the bus contract says so: a numeric GeoJSON id becomes
/// the literal text of its JSON number (`5` → `"5"`, `5.0` → `"5.0"`), never a reformatted
/// `Double`, so a user can ask for exactly what they see in the source file.
public struct Marker: Sendable, Hashable, Codable {
    /// The unique id, compared and ordered by its UTF-8 bytes (see ``MarkerID``).
    public var id: String
    /// The display name, trimmed of surrounding white space; never empty, not unique.
    public var name: String
    /// WGS84 latitude in degrees, in -90...90.
    public var latitude: Double
    /// WGS84 longitude in degrees, in -180...180.
    public var longitude: Double

    public init(id: String, name: String, latitude: Double, longitude: Double) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
    }
}
