/// Where the simulated walker goes. The walker steers towards its next target with a limited turn rate, so every
/// turn is smooth (and the gyroscope sees it).
public enum Route: Sendable, Hashable {
    /// Visits the points in order, then starts again from the first, forever. Put the start `(0, 0)` last to
    /// close the loop.
    case loop([LocalPoint])
    /// Walks straight along one heading (degrees clockwise from true north), forever.
    case straight(heading: Double)
    /// Legs of random length (uniform in 0.5…1.5 × `meanLegLength` metres), each turning from the last by a normal
    /// angle with `turnStandardDeviation` degrees, drawn from the simulator's seed.
    case randomWalk(meanLegLength: Double, turnStandardDeviation: Double)

    /// The default walk: a six-leg loop of about 540 m on the meadow paths near the Chinesischer Turm in Munich's
    /// Englischer Garten (see ``WalkerConfiguration/startLatitude``), back to the start. Its turns are 70° to 120°,
    /// to both sides, so the headings cover the whole compass rose.
    public static let parkLoop = Route.loop([
        LocalPoint(north: 120, east: 0),
        LocalPoint(north: 140, east: 80),
        LocalPoint(north: 70, east: 60),
        LocalPoint(north: 60, east: 140),
        LocalPoint(north: -20, east: 90),
        LocalPoint(north: 0, east: 0),
    ])

    func validate() throws {
        switch self {
        case .loop(let points):
            guard !points.isEmpty else { throw WalkerSimulationError.invalidConfiguration("a loop route needs at least one point") }
            guard points.allSatisfy({ $0.north.isFinite && $0.east.isFinite }),
                points.allSatisfy({ abs($0.north) < 100_000 && abs($0.east) < 100_000 })
            else {
                throw WalkerSimulationError.invalidConfiguration("loop points must be finite and within 100 km of the start")
            }
        case .straight(let heading):
            guard heading.isFinite else { throw WalkerSimulationError.invalidConfiguration("a straight route needs a finite heading") }
        case .randomWalk(let meanLegLength, let turnStandardDeviation):
            guard meanLegLength.isFinite, meanLegLength >= 5, meanLegLength <= 10_000 else {
                throw WalkerSimulationError.invalidConfiguration("a random walk's mean leg length must be 5…10,000 m")
            }
            guard turnStandardDeviation.isFinite, turnStandardDeviation >= 0 else {
                throw WalkerSimulationError.invalidConfiguration("a random walk's turn deviation must be finite and not negative")
            }
        }
    }
}
