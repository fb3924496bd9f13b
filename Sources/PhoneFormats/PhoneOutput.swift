/// What the stack publishes for a phone: one of the three contract messages, or an acceleration sample that
/// cannot be one (no magnetometer reading) but still counts steps.
public enum PhoneOutput: Sendable, Hashable {
    /// An assembled IMU sample.
    case imu(IMUSample)
    /// Acceleration (including gravity) with no magnetometer reading yet: not a contract `imu` (whose `mag` is
    /// required), so it is not published as one; a step detector takes it.
    case acceleration(AccelerationSample)
    /// A location fix.
    case location(LocationSample)
    /// A cumulative step count.
    case steps(StepSample)

    /// The sample time, seconds.
    public var timestamp: Double {
        switch self {
        case .imu(let sample): sample.timestamp
        case .acceleration(let sample): sample.timestamp
        case .location(let sample): sample.timestamp
        case .steps(let sample): sample.timestamp
        }
    }
}
