/// The simulator's two angle wraps. The elementary functions come from swift-numerics (`Double.sin`, `Double.cos`,
/// `Double.atan2(y:x:)`, `Double.acos`, `Double.log`, `Double.exp` of `RealModule`, the same libm calls), degrees and
/// radians from CompassKit's ``Angle``; neither has these.
///
/// They differ from CompassKit's `Angle.normalized(_:)` and `Angle.difference(from:to:)` in one bit: they keep the
/// sign of a negative zero (`compass(-0.0)` is `-0.0`, where `Angle` gives `+0.0`). The simulator's output is pinned
/// bit for bit by the golden tests, and a heading of exactly north computed as `atan2(-0.0, x)` is `-0.0`, so
/// the simulator keeps its own.
enum Math {
    /// Any finite angle mapped into [0, 360).
    static func compass(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        return value >= 360 ? 0 : value
    }

    /// The signed smallest angle, in (-180, 180].
    static func signedAngle(_ degrees: Double) -> Double {
        var value = compass(degrees)
        if value > 180 { value -= 360 }
        return value
    }
}
