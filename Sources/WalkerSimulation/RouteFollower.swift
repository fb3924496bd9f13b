import CompassKit
import RealModule

/// Picks the direction the walker wants to go; the simulator then turns towards it at a limited rate.
struct RouteFollower: Sendable {
    /// Within this many metres a waypoint counts as reached, comfortably more than the turning radius
    /// (1.35 m/s at 45°/s is 1.7 m), so the walker never circles a waypoint.
    static let captureRadius = 3.0

    private let route: Route
    private var targetIndex = 0
    private var target: LocalPoint?
    private var rng: SplitMix64

    init(route: Route, rng: SplitMix64) {
        self.route = route
        self.rng = rng
    }

    /// The walking direction at the start, so the walk does not begin with a turn.
    mutating func initialHeading() -> Double {
        switch route {
        case .straight(let heading):
            return Math.compass(heading)
        case .randomWalk:
            return Math.compass(360 * rng.nextUnit())
        case .loop:
            return desiredHeading(from: LocalPoint(north: 0, east: 0), heading: 0) ?? 0
        }
    }

    /// The heading (degrees, true) towards the current target, choosing the next target when this one is reached;
    /// `nil` to keep the current heading.
    mutating func desiredHeading(from position: LocalPoint, heading: Double) -> Double? {
        switch route {
        case .straight(let heading):
            return Math.compass(heading)
        case .loop(let points):
            // Skip points already reached; if every point is within the capture radius, walk straight on.
            for _ in 0..<points.count {
                let point = points[targetIndex]
                if Self.distance(from: position, to: point) > Self.captureRadius {
                    return Self.bearing(from: position, to: point)
                }
                targetIndex = (targetIndex + 1) % points.count
            }
            return nil
        case .randomWalk(let meanLegLength, let turnStandardDeviation):
            if let target, Self.distance(from: position, to: target) > Self.captureRadius {
                return Self.bearing(from: position, to: target)
            }
            let direction = Angle.radians(heading + turnStandardDeviation * rng.nextClippedGaussian())
            let length = meanLegLength * (0.5 + rng.nextUnit())
            let next = LocalPoint(
                north: position.north + length * Double.cos(direction),
                east: position.east + length * Double.sin(direction))
            target = next
            return Self.bearing(from: position, to: next)
        }
    }

    static func distance(from a: LocalPoint, to b: LocalPoint) -> Double {
        let dn = b.north - a.north
        let de = b.east - a.east
        return (dn * dn + de * de).squareRoot()
    }

    static func bearing(from a: LocalPoint, to b: LocalPoint) -> Double {
        Math.compass(Angle.degrees(Double.atan2(y: b.east - a.east, x: b.north - a.north)))
    }
}
