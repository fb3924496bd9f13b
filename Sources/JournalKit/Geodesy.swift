import Foundation

/// Distances and small displacements on a spherical Earth, in metres and degrees.
public enum Geodesy {
    /// The mean Earth radius (IUGG R1), in metres.
    public static let earthRadius: Double = 6_371_008.8

    /// The great-circle (haversine) distance between two coordinates, in metres.
    ///
    /// The half-versine is clamped to 0...1 so that rounding near antipodal points never yields NaN.
    public static func distance(_ a: GeoCoordinate, _ b: GeoCoordinate) -> Double {
        let radians = Double.pi / 180
        let sinHalfLatitude = sin((b.latitude - a.latitude) * radians / 2)
        let sinHalfLongitude = sin((b.longitude - a.longitude) * radians / 2)
        var h =
            sinHalfLatitude * sinHalfLatitude
            + cos(a.latitude * radians) * cos(b.latitude * radians) * sinHalfLongitude * sinHalfLongitude
        h = min(max(h, 0), 1)
        return 2 * earthRadius * asin(h.squareRoot())
    }

    /// The coordinate `north` metres north and `east` metres east of `p` (negative values go south and west).
    ///
    /// A local flat-Earth approximation, good to a few centimetres over a few kilometres away from the poles.
    /// The latitude is clamped to -90...90 and the longitude wrapped to -180..<180 degrees. At a pole, where east
    /// has no meaning, only the northward part is applied.
    public static func offset(_ p: GeoCoordinate, north: Double, east: Double) -> GeoCoordinate {
        let degrees = 180 / Double.pi
        let latitude = p.latitude + north / earthRadius * degrees
        let cosLatitude = cos(p.latitude / degrees)
        let longitude = cosLatitude > 1e-12 ? p.longitude + east / (earthRadius * cosLatitude) * degrees : p.longitude
        return GeoCoordinate(latitude: min(90, max(-90, latitude)), longitude: wrapLongitude(longitude))
    }

    /// The point a `fraction` (0 at `a`, 1 at `b`) of the way from `a` to `b`, interpolating degrees linearly.
    ///
    /// The longitude goes the short way round, so from 179.9° to -179.9° it crosses the antimeridian rather than
    /// the whole globe; a result beyond ±180° is wrapped to -180..<180 degrees.
    public static func interpolate(_ a: GeoCoordinate, _ b: GeoCoordinate, fraction: Double) -> GeoCoordinate {
        var deltaLongitude = b.longitude - a.longitude
        if deltaLongitude > 180 { deltaLongitude -= 360 } else if deltaLongitude < -180 { deltaLongitude += 360 }
        var longitude = a.longitude + deltaLongitude * fraction
        if longitude < -180 || longitude > 180 { longitude = wrapLongitude(longitude) }
        return GeoCoordinate(latitude: a.latitude + (b.latitude - a.latitude) * fraction, longitude: longitude)
    }

    /// A longitude in degrees brought into -180..<180 (so 180 becomes -180 and 190 becomes -170).
    public static func wrapLongitude(_ longitude: Double) -> Double {
        guard longitude.isFinite else { return longitude }
        if longitude >= -180, longitude < 180 { return longitude }
        var wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        let result = wrapped - 180
        return result >= 180 ? result - 360 : result
    }
}
