/// One contract step count: `{"steps", "timestamp"}`, steps cumulative since the session began.
public struct StepSample: Sendable, Hashable, Codable {
    /// Cumulative steps since the session began.
    public var steps: Int
    /// Seconds since 1970 (or since the start of a relative export).
    public var timestamp: Double

    /// Creates a step count.
    public init(steps: Int, timestamp: Double) {
        self.steps = steps
        self.timestamp = timestamp
    }
}
