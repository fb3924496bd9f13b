/// One decoded sensor reading, already converted to the contract's units and Android device frame,
/// before the separate streams are assembled into IMU samples.
public struct PhoneSample: Sendable, Hashable {
    /// Seconds since 1970 (or since the start of a relative export).
    public var time: Double
    /// The reading.
    public var reading: Reading

    /// Creates a sample.
    public init(time: Double, reading: Reading) {
        self.time = time
        self.reading = reading
    }

    /// What a sample measured.
    public enum Reading: Sendable, Hashable {
        /// Acceleration including gravity, m/s² (Android `TYPE_ACCELEROMETER`, Sensor Logger `totalacceleration`).
        case acceleration(Vector3)
        /// Acceleration with gravity removed, m/s² (Sensor Logger `accelerometer`, phyphox linear acceleration).
        case userAcceleration(Vector3)
        /// Gravity vector, m/s², pointing up in the Android convention (flat face up ≈ +z).
        case gravity(Vector3)
        /// Magnetic field, µT; `calibrated` is false for uncalibrated (raw) streams.
        case magneticField(Vector3, calibrated: Bool)
        /// Rotation rate, rad/s; `calibrated` is false for uncalibrated streams.
        case rotationRate(Vector3, calibrated: Bool)
        /// A location fix (its `timestamp` equals the sample time).
        case location(LocationSample)
        /// Cumulative step count since the session began.
        case steps(Int)
    }
}
