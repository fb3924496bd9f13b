/// Where a route point came from.
public enum RouteSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// A GPS fix at least as accurate as the journal's limit.
    case gps
    /// The dead-reckoned `position`, placed on the map from the last good fix.
    case deadReckoning
}

/// One point of a walk's route.
public struct RoutePoint: Sendable, Hashable, Codable {
    /// Seconds since 1970.
    public var time: Double
    public var coordinate: GeoCoordinate
    /// Metres above the WGS84 ellipsoid as the phone gave it; dead-reckoned points carry the last fix's.
    public var elevation: Double?
    public var source: RouteSource
    /// Metres along the walk from its start up to this point.
    public var distance: Double

    public init(time: Double, coordinate: GeoCoordinate, elevation: Double?, source: RouteSource, distance: Double) {
        self.time = time
        self.coordinate = coordinate
        self.elevation = elevation
        self.source = source
        self.distance = distance
    }
}

/// A place on the route where the journal looks for a photo: one every `photoEvery` metres along the walk.
public struct PhotoPoint: Sendable, Hashable, Codable {
    /// 1 for the first point (at `photoEvery` metres), 2 for the second, and so on.
    public var index: Int
    /// Metres along the walk (index × photoEvery).
    public var distance: Double
    public var coordinate: GeoCoordinate
    /// Seconds since 1970 (interpolated between the two route points around it).
    public var time: Double

    public init(index: Int, distance: Double, coordinate: GeoCoordinate, time: Double) {
        self.index = index
        self.distance = distance
        self.coordinate = coordinate
        self.time = time
    }
}
