public import Configuration
import Foundation
import ServiceRuntime
import StepCompassContract

/// The position calculator's settings.
public struct PositionConfiguration: Sendable, Hashable {
    /// Which heading a batch uses (`--heading-source`).
    public enum HeadingSource: String, Sendable, Hashable, CaseIterable {
        /// The heading message's `heading`: where the top of the device points (the contract's default).
        case device
        /// The heading message's `walkingDirection` when it has one (the direction its owner walks, whatever way
        /// the phone is carried), else its `heading`.
        case walking
    }

    /// The contract's defaults: 10 steps a batch, 0.75 m a step, the device heading, a settle window of 5 s.
    public static let defaults = PositionConfiguration()

    /// Steps per position update (the contract's 10).
    public var stepsPerUpdate: Int
    /// Metres per step (the contract's 0.75); with ``estimatedStepLength``, the length of a step whose message
    /// reports no distance.
    public var stepLength: Double
    /// Whether batches advance by the `distance` the steps messages report (`--step-length estimated`) instead of
    /// steps × ``stepLength``.
    public var estimatedStepLength: Bool
    /// Which heading a batch uses (default ``HeadingSource/device``).
    public var headingSource: HeadingSource
    /// Longest wait for the retained positions after subscribing; it normally ends in milliseconds, when the
    /// sync marker comes back.
    public var settleWindow: Duration
    /// The most devices tracked (`--max-devices`, default 100,000): when full, a new device takes the place of the
    /// one idle the longest if it has been idle a minute, else its messages are rejected (``DeviceTable``). An
    /// evicted device that comes back starts again from (0, 0) (see ``PositionService``).
    public var maxDevices: Int = DeviceTable<Void>.defaultCapacity

    public init(
        stepsPerUpdate: Int = 10, stepLength: Double = 0.75, settleWindow: Duration = .seconds(5),
        estimatedStepLength: Bool = false, headingSource: HeadingSource = .device
    ) {
        self.stepsPerUpdate = stepsPerUpdate
        self.stepLength = stepLength
        self.settleWindow = settleWindow
        self.estimatedStepLength = estimatedStepLength
        self.headingSource = headingSource
    }

    /// Reads the settings from configuration.
    ///
    /// Keys (each optional, defaults in ``defaults``): `steps.per.update` (int), `step.length` (double, metres, or
    /// the word `estimated`: the reported distances, with the default 0.75 m for steps reported without one),
    /// `heading.source` (`device` or `walking`), `settle.ms` (int, milliseconds), `max.devices` (int).
    /// - Parameter config: The service's configuration.
    public init(config: ConfigReader) {
        let defaults = Self.defaults
        // A number first (the shipped Config/position.json holds one, and asking a JSON number for a string is a
        // type mismatch the runtime reports as a malformed setting); the word only when no number is there.
        let number = config.double(forKey: "step.length")
        let estimated =
            number == nil
            && config.string(forKey: "step.length")?.trimmingCharacters(in: .whitespaces).lowercased() == "estimated"
        let source = config.string(forKey: "heading.source")?.trimmingCharacters(in: .whitespaces).lowercased()
        self.init(
            stepsPerUpdate: config.int(forKey: "steps.per.update", default: defaults.stepsPerUpdate),
            stepLength: number ?? defaults.stepLength,
            settleWindow: .milliseconds(config.int(forKey: "settle.ms", default: Int(defaults.settleWindow.inMilliseconds))),
            estimatedStepLength: estimated,
            headingSource: source.flatMap(HeadingSource.init(rawValue:)) ?? defaults.headingSource)
        maxDevices = config.int(forKey: "max.devices", default: defaults.maxDevices)
    }
}
