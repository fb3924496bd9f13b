/// The compass rose's rotation, unwrapped: it moves by the shortest turn from one heading to the next,
/// so a CSS transition from 359° to 1° turns 2° forward instead of 358° back.
///
/// Kept per device in the view model (not in the page), so every browser and the tests see the same
/// angle, and a page that connects late starts from the current one.
public struct RoseAngle: Sendable, Hashable {
    /// Degrees, unbounded; the heading is this modulo 360.
    public private(set) var degrees: Double?

    public init() {}

    /// Turns to `heading` the short way round (exactly 180° turns clockwise).
    public mutating func turn(to heading: Double) {
        guard heading.isFinite else { return }
        guard let current = degrees else {
            degrees = heading
            return
        }
        var delta = (heading - current).truncatingRemainder(dividingBy: 360)
        if delta > 180 { delta -= 360 }
        if delta <= -180 { delta += 360 }
        degrees = current + delta
    }
}
