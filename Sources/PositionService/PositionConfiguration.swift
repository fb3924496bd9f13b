public import Configuration

/// The position calculator's settings.
public struct PositionConfiguration: Sendable, Hashable {
    /// The contract's defaults: 10 steps a batch, 0.75 m a step, a settle window of 5 s.
    public static let defaults = PositionConfiguration()

    /// Steps per position update (the contract's 10).
    public var stepsPerUpdate: Int
    /// Metres per step (the contract's 0.75).
    public var stepLength: Double
    /// Longest wait for the retained positions after subscribing; it normally ends in milliseconds, when the
    /// sync marker comes back.
    public var settleWindow: Duration

    public init(stepsPerUpdate: Int = 10, stepLength: Double = 0.75, settleWindow: Duration = .seconds(5)) {
        self.stepsPerUpdate = stepsPerUpdate
        self.stepLength = stepLength
        self.settleWindow = settleWindow
    }

    /// Reads the settings from configuration.
    ///
    /// Keys (each optional, defaults in ``defaults``): `steps.per.update` (int), `step.length` (double,
    /// metres), `settle.ms` (int, milliseconds).
    /// - Parameter config: The service's configuration.
    public init(config: ConfigReader) {
        let defaults = Self.defaults
        self.init(
            stepsPerUpdate: config.int(forKey: "steps.per.update", default: defaults.stepsPerUpdate),
            stepLength: config.double(forKey: "step.length", default: defaults.stepLength),
            settleWindow: .milliseconds(config.int(forKey: "settle.ms", default: Int(defaults.settleWindow.milliseconds))))
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
