import Foundation

/// The yearly rates of change (secular variation) of the field elements at one place and time.
///
/// The model is linear in time, so these rates come almost for free with the field. They tell how fast a
/// declination goes stale, e.g. ~0.5°/yr near the north magnetic pole, and match the "dot" columns of NOAA's
/// test tables.
public struct MagneticFieldChange: Sendable, Equatable {
    /// Ẋ, the change of the northward component, in nT per year.
    public var north: Double
    /// Ẏ, the change of the eastward component, in nT per year.
    public var east: Double
    /// Ż, the change of the downward component, in nT per year.
    public var down: Double
    /// Ḣ, the change of the horizontal intensity, in nT per year.
    public var horizontalIntensity: Double
    /// Ḟ, the change of the total intensity, in nT per year.
    public var totalIntensity: Double
    /// Ḋ, the change of the declination, in degrees per year (also the change of the grid variation).
    public var declination: Double
    /// İ, the change of the inclination, in degrees per year.
    public var inclination: Double

    /// Derives the element rates from the field and the component rates, as NOAA's
    /// `MAG_CalculateSecularVariationElements` does.
    ///
    /// - Parameters:
    ///   - field: The field at the time of interest.
    ///   - north: Ẋ in nT/yr.
    ///   - east: Ẏ in nT/yr.
    ///   - down: Ż in nT/yr.
    public init(field: MagneticField, north: Double, east: Double, down: Double) {
        let x = field.north
        let y = field.east
        let z = field.down
        let h = field.horizontalIntensity
        let f = field.totalIntensity
        self.north = north
        self.east = east
        self.down = down
        horizontalIntensity = (x * north + y * east) / h
        totalIntensity = (x * north + y * east + z * down) / f
        declination = 180 / .pi * (x * east - y * north) / (h * h)
        inclination = 180 / .pi * (h * down - z * horizontalIntensity) / (f * f)
    }
}
