import StepCompassContract

/// The contract's device payloads as JSON text, from what phones send: `imu`, `location`, `steps` and
/// `permissions`. Numbers are written unrounded (Swift's shortest exact representation), absent fields are left out,
/// and a sample with a non-finite number gives nil. The one writer for the bridge and for replayed phone exports.
public enum ContractPayloads {
    /// `{"timestamp", "accel", "mag", "gyro"?}`; `timeOffset` seconds are added to the sample's time.
    public static func imu(_ sample: IMUSample, timeOffset: Double = 0) -> String? {
        guard sample.accel.isFinite, sample.mag.isFinite, sample.gyro?.isFinite != false else { return nil }
        var text = #"{"timestamp":""# + timestamp(sample.timestamp + timeOffset) + #"","accel":"# + vector(sample.accel)
        text += #","mag":"# + vector(sample.mag)
        if let gyro = sample.gyro { text += #","gyro":"# + vector(gyro) }
        return text + "}"
    }

    /// `{"timestamp", "latitude", "longitude", ...}` with the optional fields that are known.
    public static func location(_ fix: LocationSample, timeOffset: Double = 0) -> String? {
        guard fix.latitude.isFinite, fix.longitude.isFinite else { return nil }
        var text = #"{"timestamp":""# + timestamp(fix.timestamp + timeOffset) + #"","latitude":\#(fix.latitude),"longitude":\#(fix.longitude)"#
        for (name, value) in [
            ("altitude", fix.altitude), ("horizontalAccuracy", fix.horizontalAccuracy),
            ("verticalAccuracy", fix.verticalAccuracy), ("speed", fix.speed), ("course", fix.course),
        ] {
            if let value, value.isFinite { text += #","\#(name)":\#(value)"# }
        }
        return text + "}"
    }

    /// `{"timestamp", "steps", "source", "distance"?}`: a cumulative count and where it came from (`pedometer` or
    /// `detector`).
    public static func steps(_ steps: Int, distance: Double? = nil, source: String, time: Double) -> String {
        var text = #"{"timestamp":""# + timestamp(time) + #"","steps":\#(steps),"source":"\#(source)""#
        if let distance, distance.isFinite { text += #","distance":\#(distance)"# }
        return text + "}"
    }

    /// `{"motion": "authorized", "location": "authorized" | "notDetermined"}`: a phone that sends motion data has
    /// motion access; location access shows once it sends a fix.
    public static func permissions(location: Bool) -> String {
        #"{"motion":"authorized","location":"\#(location ? "authorized" : "notDetermined")"}"#
    }

    private static func vector(_ value: Vector3) -> String {
        "[\(value.x),\(value.y),\(value.z)]"
    }

    private static func timestamp(_ seconds: Double) -> String {
        Timestamp.format(secondsSince1970: seconds)
    }
}
