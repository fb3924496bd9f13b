/// The tunables of ``StepDetector``. Start from ``defaults`` and change what you must.
public struct StepDetectorConfiguration: Sendable, Hashable {
    /// Time constant (s) of the low-pass that tracks the magnitude of gravity (the baseline taken off |a|).
    public var gravityTimeConstant: Double
    /// Cut-off (Hz) of each of the two cascaded one-pole low-passes applied to |a| − gravity.
    public var lowPassCutoff: Double
    /// Shortest accepted time between steps (s). 0.35 s (2.9 steps/s) also rejects most shaking.
    public var minimumStepInterval: Double
    /// Longest time between steps (s) that still continues a walk.
    public var maximumStepInterval: Double
    /// Smallest peak-to-valley swing (m/s²) of the filtered signal that can be a step.
    public var minimumAmplitude: Double
    /// A step's swing must also reach this fraction of the running step amplitude.
    public var relativeAmplitude: Double
    /// Hysteresis of the peak/valley search, as a fraction of the running step amplitude.
    public var hysteresisFraction: Double
    /// How many regular steps in a row confirm walking (2...8). Until then nothing is counted; on confirmation
    /// all of them but the last are released at once (the last is held until the next step confirms it).
    public var confirmationSteps: Int
    /// Before confirmation, a step interval may differ by at most this fraction from the same foot's previous
    /// interval (the one two steps back); left and right intervals may differ.
    public var regularityTolerance: Double
    /// A time without samples (s) longer than this restarts the filters.
    public var gapThreshold: Double
    /// The step-length model applied to each step.
    public var stepLength: StepLengthModel

    /// A configuration; every parameter defaults to the value in ``defaults``.
    public init(
        gravityTimeConstant: Double = 1.5,
        lowPassCutoff: Double = 3.0,
        minimumStepInterval: Double = 0.35,
        maximumStepInterval: Double = 2.0,
        minimumAmplitude: Double = 0.4,
        relativeAmplitude: Double = 0.4,
        hysteresisFraction: Double = 0.25,
        confirmationSteps: Int = 5,
        regularityTolerance: Double = 0.5,
        gapThreshold: Double = 0.5,
        stepLength: StepLengthModel = StepLengthModel()
    ) {
        self.gravityTimeConstant = gravityTimeConstant
        self.lowPassCutoff = lowPassCutoff
        self.minimumStepInterval = minimumStepInterval
        self.maximumStepInterval = maximumStepInterval
        self.minimumAmplitude = minimumAmplitude
        self.relativeAmplitude = relativeAmplitude
        self.hysteresisFraction = hysteresisFraction
        self.confirmationSteps = min(max(confirmationSteps, 2), DetectedSteps.capacity)
        self.regularityTolerance = regularityTolerance
        self.gapThreshold = gapThreshold
        self.stepLength = stepLength
    }

    /// The tuned defaults.
    public static let defaults = StepDetectorConfiguration()
}
