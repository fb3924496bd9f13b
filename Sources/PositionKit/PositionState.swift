/// The calculator's published state: the body of a `stepcompass/{device}/position` message without its timestamp (the
/// contract's `PositionMessage`, which the position service writes from it and reads it back from).
///
/// It is also all a restarted calculator needs (see ``PositionCalculator/init(restoring:currentHeading:stepsPerUpdate:stepLength:)``):
/// the steps of a partial batch and the batches still waiting for a heading are `steps − updates × stepsPerUpdate`,
/// so nothing else has to be persisted. With estimated step lengths, two optional fields (``pendingDistance`` and
/// ``sessionDistance``) carry the metres of those steps and the distance baseline.
public struct PositionState: Sendable, Hashable {
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
}
