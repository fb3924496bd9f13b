/// An accelerometer sample with no magnetometer reading to go with it: enough to count steps, not a contract IMU
/// sample.
public struct AccelerationSample: Sendable, Hashable {
    /// Seconds since 1970 (or since the start of a relative export).
    public var timestamp: Double
    /// Acceleration including gravity, m/s², Android device frame.
    public var accel: Vector3

    /// Creates a sample.
    public init(timestamp: Double, accel: Vector3) {
        self.timestamp = timestamp
        self.accel = accel
    }
}
