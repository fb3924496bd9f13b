import CompassKit
import RealModule

/// Converts the walk's local metres (north, east of the start) to WGS84 latitude and longitude.
///
/// Uses the ellipsoid's meridian and prime-vertical radii of curvature at the start: over a walk of a few
/// kilometres the error is far below GPS noise, and it keeps truth and GPS in exactly the same frame as
/// the position calculator's x (north) and y (east).
struct LocalTangentPlane: Sendable, Hashable {
    private static let semiMajorAxis = 6_378_137.0
    private static let eccentricitySquared = 6.694_379_990_14e-3

    let latitude: Double
    let longitude: Double
    private let metresPerDegreeLatitude: Double
    private let metresPerDegreeLongitude: Double

    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
        let phi = Angle.radians(latitude)
        let sine = Double.sin(phi)
        let w = (1 - Self.eccentricitySquared * sine * sine).squareRoot()
        let meridian = Self.semiMajorAxis * (1 - Self.eccentricitySquared) / (w * w * w)
        let primeVertical = Self.semiMajorAxis / w
        metresPerDegreeLatitude = meridian * .pi / 180
        metresPerDegreeLongitude = primeVertical * Double.cos(phi) * .pi / 180
    }

    /// Latitude and longitude (degrees, longitude in (-180, 180]) of a local point.
    func coordinates(of point: LocalPoint) -> (latitude: Double, longitude: Double) {
        var longitude = longitude + point.east / metresPerDegreeLongitude
        if longitude > 180 { longitude -= 360 }
        if longitude <= -180 { longitude += 360 }
        return (latitude + point.north / metresPerDegreeLatitude, longitude)
    }
}
