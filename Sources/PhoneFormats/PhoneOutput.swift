/// What the stack publishes for a phone: one of the three contract messages.
public enum PhoneOutput: Sendable, Hashable {
    /// An assembled IMU sample.
    case imu(IMUSample)
    /// A location fix.
    case location(LocationSample)
    /// A cumulative step count.
    case steps(StepSample)

    /// The sample time, seconds.
    public var timestamp: Double {
        switch self {
        case .imu(let sample): sample.timestamp
        case .location(let sample): sample.timestamp
        case .steps(let sample): sample.timestamp
        }
    }
}
