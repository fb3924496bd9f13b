/// A place where something magnetic (a steel bench, a manhole cover, a parked car) adds to the Earth's field.
///
/// Inside the circle the disturbance is added in full; within the outer fifth of the radius it fades linearly to
/// zero, so walking in or out changes the field over a few steps rather than in one sample.
public struct InterferenceZone: Sendable, Hashable {
    /// The centre in the walk's local frame.
    public var center: LocalPoint
    /// Metres.
    public var radius: Double
    /// The added field in the world frame, µT: north, east, down.
    public var disturbance: [Double]

    public init(center: LocalPoint, radius: Double, disturbance: [Double]) {
        self.center = center
        self.radius = radius
        self.disturbance = disturbance
    }

    /// The share of the disturbance felt at a point: 1 inside, fading to 0 over the outer fifth of the radius.
    func weight(at point: LocalPoint) -> Double {
        let dn = point.north - center.north
        let de = point.east - center.east
        let distance = (dn * dn + de * de).squareRoot()
        let fadeStart = 0.8 * radius
        if distance <= fadeStart { return 1 }
        if distance >= radius { return 0 }
        return (radius - distance) / (radius - fadeStart)
    }

    func validate() throws {
        guard center.north.isFinite, center.east.isFinite, radius.isFinite, radius > 0 else {
            throw WalkerSimulationError.invalidConfiguration("an interference zone needs a finite centre and a positive radius")
        }
        guard disturbance.count == 3, disturbance.allSatisfy(\.isFinite) else {
            throw WalkerSimulationError.invalidConfiguration("an interference zone's disturbance must be 3 finite numbers (north, east, down µT)")
        }
    }
}
