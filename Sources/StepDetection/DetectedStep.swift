/// One step found by ``StepDetector``.
public struct DetectedStep: Sendable, Hashable {
    /// When the step happened: the time (seconds, on the caller's clock) of the acceleration peak that marks it.
    /// The filter delays the peak by roughly 0.1 s against the heel strike.
    public var time: Double
    /// The step's estimated length in metres (see ``StepLengthModel``).
    public var length: Double

    /// A step at `time` (seconds) of `length` metres.
    public init(time: Double, length: Double) {
        self.time = time
        self.length = length
    }
}
