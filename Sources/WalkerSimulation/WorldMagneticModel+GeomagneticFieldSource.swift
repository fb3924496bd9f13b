public import Foundation
public import GeoMagnetism

/// The World Magnetic Model as the simulator's field source, so the simulated magnetometer sees the field the
/// compass service expects at that place and date.
extension WorldMagneticModel: GeomagneticFieldSource {
    /// The WMM field in µT (the model gives nT), with the altitude in metres above the WGS-84 ellipsoid.
    ///
    /// Dates past the model's validity are extrapolated (the model's own linear secular variation) rather than
    /// refused: a simulation that runs in 2031 should still walk, with a field a fraction of a degree off.
    ///
    /// - Throws: the model's ``GeoMagnetismError`` for a latitude, longitude or altitude out of range or a NaN date.
    public func geomagneticField(
        latitude: Double, longitude: Double, altitude: Double, date: Date
    ) throws -> (north: Double, east: Double, down: Double) {
        let field = try field(
            latitude: latitude, longitude: longitude, altitude: altitude,
            decimalYear: Self.decimalYear(of: date), allowOutsideValidity: true)
        return (field.north / 1_000, field.east / 1_000, field.down / 1_000)
    }
}
