/// One Sensor Logger reading of a sensor this library uses, as the app reported it (units and frame
/// not yet converted; see ``SensorLoggerConvention``).
public struct SensorLoggerReading: Sendable, Hashable {
    /// UTC nanoseconds since 1970, as sent.
    public var timeNanoseconds: Int64
    /// What was measured.
    public var sensor: Sensor

    /// Creates a reading.
    public init(timeNanoseconds: Int64, sensor: Sensor) {
        self.timeNanoseconds = timeNanoseconds
        self.sensor = sensor
    }

    /// Seconds since 1970.
    public var time: Double { Double(timeNanoseconds) / 1_000_000_000 }

    /// The sensors read, by Sensor Logger name (push `name`, lower-cased CSV file name).
    public enum Sensor: Sendable, Hashable {
        /// `accelerometer`: acceleration without gravity, m/s² (iOS default frame: negated).
        case accelerometer(Vector3)
        /// `totalacceleration` (Android only): acceleration including gravity, m/s².
        case totalAcceleration(Vector3)
        /// `gravity`: m/s² (iOS default frame: negated, pointing down).
        case gravity(Vector3)
        /// `accelerometeruncalibrated`: in g on iOS unless "Standardise Units & Frames" is on, else m/s².
        /// Used only to recognise the convention.
        case accelerometerUncalibrated(Vector3)
        /// `magnetometer`: µT.
        case magnetometer(Vector3)
        /// `magnetometeruncalibrated`: µT.
        case magnetometerUncalibrated(Vector3)
        /// `gyroscope`: rad/s (same on both platforms).
        case gyroscope(Vector3)
        /// `gyroscopeuncalibrated`: rad/s.
        case gyroscopeUncalibrated(Vector3)
        /// `location`; `altitudeAboveMeanSeaLevel` is sent by iOS only.
        case location(LocationSample, altitudeAboveMeanSeaLevel: Double?)
        /// `pedometer`: `steps`, cumulative since the recording started.
        case pedometer(steps: Int)
    }

    /// The names this library reads; any other sensor is ignored.
    public static let knownNames: Set<String> = [
        "accelerometer", "totalacceleration", "gravity", "accelerometeruncalibrated",
        "magnetometer", "magnetometeruncalibrated", "gyroscope", "gyroscopeuncalibrated",
        "location", "pedometer",
    ]

    /// Builds a reading from a sensor `name` (case-insensitive) and a field look-up; `nil` for sensors
    /// this library does not use. Errors name the field as `prefix` + field name (e.g. `values.x`).
    static func make(
        name: String, timeNanoseconds: Int64, prefix: String, field: (String) -> FieldLookup
    ) throws(PhoneFormatError) -> SensorLoggerReading? {
        let time = Double(timeNanoseconds) / 1_000_000_000
        func vector() throws(PhoneFormatError) -> Vector3 {
            Vector3(
                x: try field("x").required("\(prefix)x"),
                y: try field("y").required("\(prefix)y"),
                z: try field("z").required("\(prefix)z")
            )
        }
        let sensor: Sensor
        switch name.lowercased() {
        case "accelerometer": sensor = .accelerometer(try vector())
        case "totalacceleration": sensor = .totalAcceleration(try vector())
        case "gravity": sensor = .gravity(try vector())
        case "accelerometeruncalibrated": sensor = .accelerometerUncalibrated(try vector())
        case "magnetometer": sensor = .magnetometer(try vector())
        case "magnetometeruncalibrated": sensor = .magnetometerUncalibrated(try vector())
        case "gyroscope": sensor = .gyroscope(try vector())
        case "gyroscopeuncalibrated": sensor = .gyroscopeUncalibrated(try vector())
        case "location":
            let location = try LocationSample.validated(
                timestamp: time,
                latitude: try field("latitude").required("\(prefix)latitude"),
                longitude: try field("longitude").required("\(prefix)longitude"),
                altitude: try field("altitude").optional("\(prefix)altitude"),
                horizontalAccuracy: try field("horizontalAccuracy").optional("\(prefix)horizontalAccuracy"),
                verticalAccuracy: try field("verticalAccuracy").optional("\(prefix)verticalAccuracy"),
                speed: try field("speed").optional("\(prefix)speed"),
                course: try field("bearing").optional("\(prefix)bearing"),
                names: ("\(prefix)latitude", "\(prefix)longitude")
            )
            sensor = .location(
                location, altitudeAboveMeanSeaLevel: try field("altitudeAboveMeanSeaLevel").optional("\(prefix)altitudeAboveMeanSeaLevel"))
        case "pedometer":
            let steps = try field("steps").required("\(prefix)steps")
            guard steps >= 0, steps < Double(Int32.max) else { throw PhoneFormatError("\(prefix)steps is out of range (\(steps))") }
            sensor = .pedometer(steps: Int(steps.rounded()))
        default:
            return nil
        }
        return SensorLoggerReading(timeNanoseconds: timeNanoseconds, sensor: sensor)
    }
}
