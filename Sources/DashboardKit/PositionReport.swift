/// A device's `position` message from the dead-reckoning service: x north and y east, in metres.
public struct PositionReport: Sendable, Hashable, Decodable {
    public var x: Double
    public var y: Double
    public var steps: Int?
    public var sessionSteps: Int?
    public var distance: Double?
    public var heading: Double?
    public var updates: Int?
    public var timestamp: String?

    public init(
        x: Double, y: Double, steps: Int? = nil, sessionSteps: Int? = nil, distance: Double? = nil,
        heading: Double? = nil, updates: Int? = nil, timestamp: String? = nil
    ) {
        self.x = x
        self.y = y
        self.steps = steps
        self.sessionSteps = sessionSteps
        self.distance = distance
        self.heading = heading
        self.updates = updates
        self.timestamp = timestamp
    }
}
