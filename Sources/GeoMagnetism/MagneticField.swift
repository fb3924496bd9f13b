import Foundation

/// The geomagnetic field vector at one place and time, with the elements derived from it.
///
/// The components are in the local geodetic frame (north, east, down), the frame of a compass on the ground:
/// ``declination`` is what turns a magnetic heading into a true one (true = magnetic + declination), and
/// ``totalIntensity`` and ``inclination`` are what a magnetometer should measure when nothing disturbs it,
/// so a service can flag magnetic interference when a reading strays from them.
public struct MagneticField: Sendable, Equatable {
    /// X, the northward component in nT.
    public var north: Double
    /// Y, the eastward component in nT.
    public var east: Double
    /// Z, the downward component in nT (positive in the northern magnetic hemisphere).
    public var down: Double
    /// H = √(X² + Y²), the horizontal intensity in nT; a compass needle is steered by this part only.
    public var horizontalIntensity: Double
    /// F = √(X² + Y² + Z²), the total intensity in nT.
    public var totalIntensity: Double
    /// D, the declination in degrees, east positive, -180...180: the angle from true north to magnetic north.
    public var declination: Double
    /// I, the inclination (dip) in degrees, down positive, -90...90.
    public var inclination: Double
    /// The grid variation in degrees, -180...180, or `nil` below 55° of latitude where it is not defined.
    ///
    /// Polar navigators steer by a grid aligned with the Greenwich meridian. Following NOAA, it is D − λ north
    /// of 55° N and D + λ south of 55° S, wrapped to -180...180.
    public var gridVariation: Double?

    /// Derives every element from the three components, as NOAA's `MAG_CalculateGeoMagneticElements` and
    /// `MAG_CalculateGridVariation` do.
    ///
    /// It lets callers (and test doubles) build a field from a measured or synthetic vector.
    ///
    /// - Parameters:
    ///   - north: X in nT.
    ///   - east: Y in nT.
    ///   - down: Z in nT.
    ///   - latitude: Geodetic latitude in degrees; decides whether a grid variation exists.
    ///   - longitude: Longitude in degrees, used for the grid variation.
    public init(north: Double, east: Double, down: Double, latitude: Double, longitude: Double) {
        self.north = north
        self.east = east
        self.down = down
        let h = (north * north + east * east).squareRoot()
        horizontalIntensity = h
        totalIntensity = (h * h + down * down).squareRoot()
        declination = atan2(east, north) * 180 / .pi
        inclination = atan2(down, h) * 180 / .pi
        gridVariation = Self.gridVariation(declination: declination, latitude: latitude, longitude: longitude)
    }

    /// How far a compass can be trusted here, from the horizontal intensity (see ``FieldReliability``).
    public var reliability: FieldReliability {
        FieldReliability(horizontalIntensity: horizontalIntensity)
    }

    /// NOAA's polar grid variation: D − λ above 55° N, D + λ below 55° S, wrapped to -180...180.
    static func gridVariation(declination: Double, latitude: Double, longitude: Double) -> Double? {
        let variation: Double
        if latitude >= 55 {
            variation = declination - longitude
        } else if latitude <= -55 {
            variation = declination + longitude
        } else {
            return nil
        }
        return wrappedDegrees(variation)
    }

    /// Wraps an angle in degrees into -180...180.
    static func wrappedDegrees(_ angle: Double) -> Double {
        var wrapped = angle.truncatingRemainder(dividingBy: 360)
        if wrapped > 180 { wrapped -= 360 }
        if wrapped < -180 { wrapped += 360 }
        return wrapped
    }
}
