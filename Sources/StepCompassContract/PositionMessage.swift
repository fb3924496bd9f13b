public import Foundation

/// The payload of `stepcompass/{device}/position` (retained), the position service's dead reckoning: x north and
/// y east in metres from where the device was first seen. Written by the position service (which also reads its own
/// retained message back after a restart), read by the journal, the dashboard and the client.
///
/// The position service always writes every contract field, `heading` as an explicit `null` before the first batch;
/// with `--step-length estimated` also `pendingDistance` and `sessionDistance` (what a restart needs). Readers need
/// only `x` and `y`; each checks the other fields it uses.
public struct PositionMessage: Sendable, Hashable, Codable {
    public var timestamp: String?
    /// Metres north.
    public var x: Double
    /// Metres east.
    public var y: Double
    /// The step total across the device's sessions.
    public var steps: Int?
    /// The last count the device reported.
    public var sessionSteps: Int?
    /// `steps × step length`, metres.
    public var distance: Double?
    /// The heading the last batch used; null before the first batch.
    public var heading: Double?
    /// The number of batches applied.
    public var updates: Int?
    /// With estimated step lengths: the metres of the steps not yet applied in a batch.
    public var pendingDistance: Double?
    /// With estimated step lengths: the device's last reported session distance.
    public var sessionDistance: Double?

    public init(
        x: Double, y: Double, steps: Int? = nil, sessionSteps: Int? = nil, distance: Double? = nil,
        heading: Double? = nil, updates: Int? = nil, timestamp: String? = nil, pendingDistance: Double? = nil,
        sessionDistance: Double? = nil
    ) {
        self.timestamp = timestamp
        self.x = x
        self.y = y
        self.steps = steps
        self.sessionSteps = sessionSteps
        self.distance = distance
        self.heading = heading
        self.updates = updates
        self.pendingDistance = pendingDistance
        self.sessionDistance = sessionDistance
    }

    private enum CodingKeys: String, CodingKey {
        case timestamp, x, y, steps, sessionSteps, distance, heading, updates, pendingDistance, sessionDistance
    }

    /// Writes `heading` always (`null` when unknown) and the other optional fields only when present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(timestamp, forKey: .timestamp)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
        try container.encodeIfPresent(steps, forKey: .steps)
        try container.encodeIfPresent(sessionSteps, forKey: .sessionSteps)
        try container.encodeIfPresent(distance, forKey: .distance)
        if let heading {
            try container.encode(heading, forKey: .heading)
        } else {
            try container.encodeNil(forKey: .heading)
        }
        try container.encodeIfPresent(updates, forKey: .updates)
        try container.encodeIfPresent(pendingDistance, forKey: .pendingDistance)
        try container.encodeIfPresent(sessionDistance, forKey: .sessionDistance)
    }

    /// The JSON bytes as the position service publishes them: keys sorted, so that equal states give equal payloads.
    /// Written by hand (``jsonPayload()``) unless a value needs `JSONEncoder` to report or escape it.
    public func encoded() throws -> Data {
        if let payload = jsonPayload() { return payload }
        return try Self.encoder.encode(self)
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}
