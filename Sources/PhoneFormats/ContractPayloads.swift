public import StepCompassContract

/// The contract's device payloads as JSON text, from what phones send: `imu`, `location`, `steps` and
/// `permissions`. Each is the contract's message (``IMUPayload``, ``LocationMessage``, ``StepsMessage``,
/// ``PermissionsMessage``) written by its hand-written writer: numbers unrounded (Swift's shortest exact
/// representation), absent fields left out, and a sample with a non-finite number gives nil. The one writer for the
/// bridge and for replayed phone exports.
public enum ContractPayloads {
    /// `{"timestamp", "accel", "mag", "gyro"?}`; `timeOffset` seconds are added to the sample's time.
    public static func imu(_ sample: IMUSample, timeOffset: Double = 0) -> String? {
        imuMessage(sample, timeOffset: timeOffset).json
    }

    /// The contract's message of an IMU sample.
    static func imuMessage(_ sample: IMUSample, timeOffset: Double = 0) -> IMUPayload {
        IMUPayload(
            timestamp: timestamp(sample.timestamp + timeOffset), accel: sample.accel.simd, mag: sample.mag.simd,
            gyro: sample.gyro.map(\.simd))
    }

    /// `{"timestamp", "latitude", "longitude", ...}` with the optional fields that are known.
    public static func location(_ fix: LocationSample, timeOffset: Double = 0) -> String? {
        locationMessage(fix, timeOffset: timeOffset).json
    }

    /// The contract's message of a location fix.
    static func locationMessage(_ fix: LocationSample, timeOffset: Double = 0) -> LocationMessage {
        LocationMessage(
            latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude,
            horizontalAccuracy: fix.horizontalAccuracy, verticalAccuracy: fix.verticalAccuracy, speed: fix.speed,
            course: fix.course, timestamp: timestamp(fix.timestamp + timeOffset))
    }

    /// `{"timestamp", "steps", "source", "distance"?}`: a cumulative count and where it came from (`pedometer` or
    /// `detector`).
    public static func steps(_ steps: Int, distance: Double? = nil, source: String, time: Double) -> String {
        StepsMessage(steps: steps, timestamp: timestamp(time), source: source, distance: distance).json
    }

    /// `{"motion": "authorized", "location": "authorized" | "notDetermined"}`: a phone that sends motion data has
    /// motion access; location access shows once it sends a fix.
    public static func permissions(location: Bool) -> String {
        PermissionsMessage(motion: "authorized", location: location ? "authorized" : "notDetermined").json
    }

    private static func timestamp(_ seconds: Double) -> String {
        Timestamp.format(secondsSince1970: seconds)
    }
}
