/// When the simulated pedometer reports its cumulative count.
public enum StepReporting: Sendable, Hashable {
    /// One `.steps` event per step, at the IMU sample in which the step lands (heel strike).
    case everyStep
    /// Like CMPedometer's live updates: the count at every multiple of the interval (seconds), only when it changed.
    case interval(Double)
}
