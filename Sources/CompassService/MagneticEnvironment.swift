import Foundation
import GeoMagnetism

/// The World Magnetic Model evaluated at a device's last location, for the field at any date.
///
/// Built once per location fix (one spherical-harmonic synthesis); each sample then costs a few
/// multiplications (``LocalMagneticModel``). Dates past the model's validity are extrapolated
/// rather than refused, so a compass keeps a plausible true north with an outdated model.
struct MagneticEnvironment: Sendable {
    /// What the compass needs from the field at one date.
    struct Expectation: Sendable, Hashable {
        /// Declination in degrees east.
        var declination: Double
        /// Inclination (dip) in degrees, positive down.
        var inclination: Double
        /// Total intensity in µT.
        var fieldStrength: Double
        /// Horizontal intensity in nT.
        var horizontalIntensity: Double
        /// The WMM warning zone.
        var reliability: FieldReliability
    }

    let local: LocalMagneticModel
    private var cachedYear = Double.nan
    private var cached: Expectation?

    /// - Throws: ``GeoMagnetismError`` for an invalid latitude, longitude or altitude.
    init(model: WorldMagneticModel, latitude: Double, longitude: Double, altitude: Double) throws(GeoMagnetismError) {
        let position = try GeodeticPosition(latitude: latitude, longitude: longitude, altitude: altitude)
        local = model.localModel(at: position)
    }

    /// The field at a date; recomputed only when the date moves by more than about an hour.
    mutating func expectation(at date: Date) -> Expectation {
        let year = WorldMagneticModel.decimalYear(of: date)
        if let cached, abs(year - cachedYear) < 1e-4 { return cached }
        let field = local.extrapolatedField(decimalYear: year)
        let value = Expectation(
            declination: field.declination, inclination: field.inclination,
            fieldStrength: field.totalIntensity / 1_000, horizontalIntensity: field.horizontalIntensity,
            reliability: field.reliability)
        cached = value
        cachedYear = year
        return value
    }
}
