/// The settings of the position calculator service.
///
/// The executable fills it from `--steps-per-update`, `--step-length` and `--settle` (or the environment and
/// `Config/position.json`); tests build it directly.
public struct PositionConfiguration: Sendable, Hashable {
    /// Steps per batch (`--steps-per-update`, default 10).
    public var stepsPerUpdate: Int
    /// Metres per step (`--step-length`, default 0.75).
    public var stepLength: Double
    /// How long after subscribing the service waits for retained `position` and `heading` messages before it
    /// applies step messages queued for it while it was down (default 500 ms).
    public var settleWindow: Duration

    /// Creates a configuration.
    /// - Parameters:
    ///   - stepsPerUpdate: Steps per batch, at least 1.
    ///   - stepLength: Metres per step, finite and positive.
    ///   - settleWindow: The longest wait for the sync marker that ends the restore phase after subscribing.
    public init(stepsPerUpdate: Int = 10, stepLength: Double = 0.75, settleWindow: Duration = .seconds(5)) {
        self.stepsPerUpdate = stepsPerUpdate
        self.stepLength = stepLength
        self.settleWindow = settleWindow
    }
}
