/// One thing the simulated phone (or the simulation itself) reports; the sensor publisher turns each into a message
/// on the topic of the same name (`steps`, `imu`, `location`, `simulation/truth`).
///
/// `t` is in seconds since the start of the walk; ``WalkerSimulator/date(at:)`` turns it into a timestamp.
public enum SimulationEvent: Sendable, Hashable {
    /// The pedometer's cumulative step count since the walk began (CMPedometer's `numberOfSteps`).
    case steps(count: Int, t: Double)
    /// One IMU sample in the device frame: accelerometer in m/s² including gravity (flat face up reads
    /// `[0, 0, +9.81]`), raw magnetometer in µT (with hard and soft iron and noise), gyroscope in rad/s.
    case imu(t: Double, accel: [Double], mag: [Double], gyro: [Double])
    /// A GPS fix: WGS84 degrees, altitude in metres, accuracies in metres, speed in m/s, course in degrees
    /// clockwise from true north in [0, 360).
    case location(
        t: Double, latitude: Double, longitude: Double, altitude: Double,
        horizontalAccuracy: Double, verticalAccuracy: Double, speed: Double, course: Double
    )
    /// The walker's true state: position, true walking heading (degrees clockwise from true north, in [0, 360)),
    /// x north and y east in metres from the start, and the step count.
    case truth(t: Double, latitude: Double, longitude: Double, heading: Double, x: Double, y: Double, steps: Int)

    /// Seconds since the start of the walk.
    public var t: Double {
        switch self {
        case .steps(_, let t): t
        case .imu(let t, _, _, _): t
        case .location(let t, _, _, _, _, _, _, _): t
        case .truth(let t, _, _, _, _, _, _): t
        }
    }
}
