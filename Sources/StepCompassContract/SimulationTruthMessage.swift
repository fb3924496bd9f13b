/// `stepcompass/{device}/simulation/truth` (QoS 0): where the simulated walker really is, for checking what the
/// services estimate. Written by `stepcompass-sensors`; read by tests and tools that score the compass and the
/// dead reckoning.
public struct SimulationTruthMessage: Codable, Sendable, Hashable {
    /// The simulated moment (ISO 8601, UTC).
    public var timestamp: String
    public var latitude: Double
    public var longitude: Double
    /// The true heading of the phone, degrees clockwise from true north.
    public var heading: Double
    /// Metres north of the start (the frame of `position`).
    public var x: Double
    /// Metres east of the start.
    public var y: Double
    /// Steps taken since the start.
    public var steps: Int

    public init(timestamp: String, latitude: Double, longitude: Double, heading: Double, x: Double, y: Double, steps: Int) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.heading = heading
        self.x = x
        self.y = y
        self.steps = steps
    }
}
