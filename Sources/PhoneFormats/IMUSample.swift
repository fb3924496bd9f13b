/// One contract IMU sample: `{"timestamp", "accel": [x,y,z], "mag": [x,y,z], "gyro": [x,y,z]?}`.
///
/// `accel` is in m/s² and includes gravity (flat face up ≈ `[0, 0, +9.81]`), `mag` in µT,
/// `gyro` in rad/s, all in the Android device frame.
public struct IMUSample: Sendable, Hashable, Codable {
    /// Seconds since 1970 (or since the start of a relative export); the caller formats it.
    public var timestamp: Double
    /// Acceleration including gravity, m/s².
    public var accel: Vector3
    /// Magnetic field, µT.
    public var mag: Vector3
    /// Rotation rate, rad/s, when a gyroscope reading is available.
    public var gyro: Vector3?

    /// Creates a sample.
    public init(timestamp: Double, accel: Vector3, mag: Vector3, gyro: Vector3? = nil) {
        self.timestamp = timestamp
        self.accel = accel
        self.mag = mag
        self.gyro = gyro
    }
}
