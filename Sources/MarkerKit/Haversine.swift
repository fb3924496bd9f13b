import Foundation

/// Great-circle distance on a spherical Earth, the one distance the bus contract defines.
///
/// The radius is 3958.8 miles (the rounded IUGG mean radius used by the existing acmeaom
/// solutions); the contract fixes it so every implementation publishes the same second decimal.
/// Do not compare with CoreLocation: WGS84 geodesics differ by 0.2–0.35 %.
public enum Haversine {
    /// Earth radius in miles used for every distance MarkerKit reports.
    public static let earthRadiusMiles: Double = 3958.8

    /// The distance in miles between two coordinates in degrees, unrounded.
    ///
    /// The half-versine `h` is clamped to `0...1` before `asin(sqrt(h))`: rounding can push it a
    /// hair above 1 for (near-)antipodal points, and the result must never be NaN.
    public static func distanceMiles(
        latitude1: Double, longitude1: Double,
        latitude2: Double, longitude2: Double
    ) -> Double {
        let toRadians = Double.pi / 180
        let phi1 = latitude1 * toRadians
        let phi2 = latitude2 * toRadians
        let sinHalfDeltaPhi = sin((latitude2 - latitude1) * toRadians / 2)
        let sinHalfDeltaLambda = sin((longitude2 - longitude1) * toRadians / 2)
        var h =
            sinHalfDeltaPhi * sinHalfDeltaPhi
            + cos(phi1) * cos(phi2) * sinHalfDeltaLambda * sinHalfDeltaLambda
        h = min(max(h, 0), 1)
        return 2 * earthRadiusMiles * asin(h.squareRoot())
    }

    /// The distance between two markers in miles, unrounded.
    public static func distanceMiles(_ a: Marker, _ b: Marker) -> Double {
        distanceMiles(
            latitude1: a.latitude, longitude1: a.longitude,
            latitude2: b.latitude, longitude2: b.longitude)
    }

    /// Rounds miles to two decimals, halves away from zero, as the contract publishes them.
    ///
    /// Rounding is for display only: ordering always uses the unrounded value, because 124 of
    /// the GeoNames nearest-3 lists tie once rounded.
    public static func roundedMiles(_ miles: Double) -> Double {
        guard miles.isFinite else { return miles }
        return (miles * 100).rounded(.toNearestOrAwayFromZero) / 100
    }
}
