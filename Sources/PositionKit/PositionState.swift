/// The calculator's published state: the body of a `stepcompass/{device}/position` message without its timestamp.
///
/// It is also all a restarted calculator needs (see ``PositionCalculator/init(restoring:currentHeading:stepsPerUpdate:stepLength:)``):
/// the steps of a partial batch and the batches still waiting for a heading are `steps − updates × stepsPerUpdate`,
/// so nothing else has to be persisted. With estimated step lengths, two optional fields (``pendingDistance`` and
/// ``sessionDistance``) carry the metres of those steps and the distance baseline.
public struct PositionState: Sendable, Hashable, Codable {
    /// Metres north of where the device was first seen (or last reset).
    public var x: Double
    /// Metres east of where the device was first seen (or last reset).
    public var y: Double
    /// The device's step total across its sessions, counted from zero (or from the last reset).
    public var steps: Int
    /// The last count the device reported: the baseline the next count is compared with.
    public var sessionSteps: Int
    /// `steps × stepLength`, in metres.
    public var distance: Double
    /// The heading the last batch used, in degrees; `nil` until a batch has been applied.
    public var heading: Double?
    /// The number of batches applied.
    public var updates: Int
    /// With estimated step lengths only (`--step-length estimated`): the metres of the steps counted but not yet
    /// applied in a batch (the partial batch and any batch waiting for a heading). `nil` (and absent from the
    /// payload) with a fixed step length, where it is always `(steps − updates × stepsPerUpdate) × stepLength`.
    public var pendingDistance: Double?
    /// With estimated step lengths only: the last `distance` the device reported for its session (the baseline the
    /// next report is compared with, as `sessionSteps` is for the count); `nil` when unknown or not estimating.
    public var sessionDistance: Double?

    /// A state with every field given; `distance` is not checked against `steps` here.
    public init(
        x: Double, y: Double, steps: Int, sessionSteps: Int, distance: Double, heading: Double?, updates: Int,
        pendingDistance: Double? = nil, sessionDistance: Double? = nil
    ) {
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

    /// The state of a device never seen: at (0, 0), nothing counted.
    public static let initial = PositionState(x: 0, y: 0, steps: 0, sessionSteps: 0, distance: 0, heading: nil, updates: 0)

    private enum CodingKeys: String, CodingKey {
        case x, y, steps, sessionSteps, distance, heading, updates, pendingDistance, sessionDistance
    }

    /// Writes `heading` as an explicit `null` before the first batch, so the payload always has every contract field.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
        try container.encode(steps, forKey: .steps)
        try container.encode(sessionSteps, forKey: .sessionSteps)
        try container.encode(distance, forKey: .distance)
        if let heading {
            try container.encode(heading, forKey: .heading)
        } else {
            try container.encodeNil(forKey: .heading)
        }
        try container.encode(updates, forKey: .updates)
        try container.encodeIfPresent(pendingDistance, forKey: .pendingDistance)
        try container.encodeIfPresent(sessionDistance, forKey: .sessionDistance)
    }

    /// Reads a retained position message; a missing or `null` heading means no batch was applied yet.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        x = try container.decode(Double.self, forKey: .x)
        y = try container.decode(Double.self, forKey: .y)
        steps = try container.decode(Int.self, forKey: .steps)
        sessionSteps = try container.decode(Int.self, forKey: .sessionSteps)
        distance = try container.decode(Double.self, forKey: .distance)
        heading = try container.decodeIfPresent(Double.self, forKey: .heading)
        updates = try container.decode(Int.self, forKey: .updates)
        pendingDistance = try container.decodeIfPresent(Double.self, forKey: .pendingDistance)
        sessionDistance = try container.decodeIfPresent(Double.self, forKey: .sessionDistance)
    }
}
