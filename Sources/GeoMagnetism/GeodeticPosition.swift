import Foundation

/// A validated point on or above the WGS-84 ellipsoid, with its geocentric coordinates worked out once.
///
/// Converting a GPS fix to the geocentric sphere the model is defined on costs a square root, an arcsine and
/// a few trigonometric calls. A compass service evaluates the field at the same place many times a second,
/// so it can build a `GeodeticPosition` when the location changes and pass it to
/// ``WorldMagneticModel/field(at:decimalYear:)`` or ``WorldMagneticModel/localModel(at:)``.
///
/// The conversion is the one in NOAA's `MAG_GeodeticToSpherical`: WGS-84 semi-major axis a = 6378.137 km and
/// inverse flattening 298.257223563.
public struct GeodeticPosition: Sendable, Hashable {
    /// Geodetic latitude in degrees, -90...90 (north positive).
    public let latitude: Double
    /// Geodetic longitude in degrees, normalised to -180...180 (east positive); an input of 240 is stored as -120.
    public let longitude: Double
    /// Height above the WGS-84 ellipsoid in metres (not above sea level).
    public let altitude: Double

    /// Geocentric radius in km.
    let radius: Double
    /// Geocentric latitude in radians.
    let geocentricLatitude: Double
    /// Geodetic latitude in radians.
    let geodeticLatitude: Double
    /// Longitude in radians.
    let longitudeRadians: Double

    /// The accepted altitude range in metres: the World Magnetic Model is specified from 1 km below to 850 km
    /// above the ellipsoid.
    public static let altitudeRange: ClosedRange<Double> = -1_000...850_000

    /// Validates a position and converts it to geocentric coordinates.
    ///
    /// - Parameters:
    ///   - latitude: Geodetic latitude in degrees, -90...90.
    ///   - longitude: Longitude in degrees, -180...360; values above 180 are taken as west of Greenwich.
    ///   - altitude: Height above the WGS-84 ellipsoid in metres, -1,000...850,000. GPS receivers report this
    ///     as the ellipsoidal height; mean-sea-level heights differ from it by up to about 100 m, which changes
    ///     the field by well under 1 nT.
    /// - Throws: ``GeoMagnetismError/invalidLatitude``, ``GeoMagnetismError/invalidLongitude`` or
    ///   ``GeoMagnetismError/invalidAltitude`` for NaN or out-of-range values.
    public init(latitude: Double, longitude: Double, altitude: Double = 0) throws(GeoMagnetismError) {
        guard (-90.0...90.0).contains(latitude) else {
            throw GeoMagnetismError.invalidLatitude.with("latitude \(latitude) is not within -90...90 degrees")
        }
        guard (-180.0...360.0).contains(longitude) else {
            throw GeoMagnetismError.invalidLongitude.with("longitude \(longitude) is not within -180...360 degrees")
        }
        guard Self.altitudeRange.contains(altitude) else {
            throw GeoMagnetismError.invalidAltitude.with(
                "altitude \(altitude) m is not within -1,000...850,000 m above the WGS-84 ellipsoid"
            )
        }
        self.latitude = latitude
        self.longitude = longitude > 180 ? longitude - 360 : longitude
        self.altitude = altitude

        let heightKm = altitude / 1000
        let phi = latitude * .pi / 180
        let cosLat = cos(phi)
        let sinLat = sin(phi)
        let rc = WGS84.semiMajorAxis / (1.0 - WGS84.eccentricitySquared * sinLat * sinLat).squareRoot()
        let xp = (rc + heightKm) * cosLat
        let zp = (rc * (1.0 - WGS84.eccentricitySquared) + heightKm) * sinLat
        let r = (xp * xp + zp * zp).squareRoot()
        self.radius = r
        self.geocentricLatitude = asin(zp / r)
        self.geodeticLatitude = phi
        self.longitudeRadians = self.longitude * .pi / 180
    }
}

/// The WGS-84 ellipsoid as the World Magnetic Model uses it.
enum WGS84 {
    /// Semi-major axis in km.
    static let semiMajorAxis = 6378.137
    /// Flattening, 1/298.257223563.
    static let flattening = 1 / 298.257223563
    /// First eccentricity squared, e² = f(2 − f).
    static let eccentricitySquared = flattening * (2 - flattening)
}
