/// A device's `steps` message: the cumulative count of its current session (CMPedometer's numberOfSteps).
public struct StepsReport: Sendable, Hashable, Decodable {
    public var steps: Int
    public var timestamp: String?

    public init(steps: Int, timestamp: String? = nil) {
        self.steps = steps
        self.timestamp = timestamp
    }
}
