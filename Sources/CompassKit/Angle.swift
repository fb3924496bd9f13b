/// Helpers for compass angles in degrees.
///
/// Headings wrap at 360°, so ordinary subtraction and averaging give wrong answers near north
/// (359° and 1° are 2° apart, not 358°). Every comparison of headings in the project goes
/// through these functions.
public enum Angle {
    /// Wraps an angle into [0, 360), the range of a compass heading.
    /// - Parameter degrees: Any finite angle.
    /// - Returns: The equivalent angle in [0, 360); `-0.0` and values that would round to 360
    ///   become 0.
    @inlinable
    public static func normalized(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        if value >= 360 { value -= 360 }
        return value + 0.0
    }

    /// The signed smallest rotation from one heading to another, in (-180, 180].
    ///
    /// Positive means `to` is clockwise of `from`. Exactly opposite headings give +180, so the
    /// result is unique (the contract's bearing-lock deviation range).
    /// - Parameters:
    ///   - from: The reference heading in degrees.
    ///   - to: The heading compared with it, in degrees.
    @inlinable
    public static func difference(from: Double, to: Double) -> Double {
        let d = normalized(to - from)
        return d > 180 ? d - 360 : d
    }

    /// The true heading from a magnetic one: true = magnetic + declination (east positive).
    /// - Parameters:
    ///   - magnetic: The magnetic heading in degrees.
    ///   - declination: The declination in degrees, positive when magnetic north lies east of
    ///     true north (the WMM's D).
    /// - Returns: The true heading in [0, 360).
    @inlinable
    public static func trueHeading(magnetic: Double, declination: Double) -> Double {
        normalized(magnetic + declination)
    }

    /// Degrees to radians.
    /// - Parameter degrees: An angle in degrees.
    @inlinable
    public static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

    /// Radians to degrees.
    /// - Parameter radians: An angle in radians.
    @inlinable
    public static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
}
