extension IMUPayload {
    /// The sample as JSON text, written by hand as the bridge and the phone-export replay have always written it:
    /// `{"timestamp"?, "accel", "mag", "gyro"?}`, numbers unrounded (Swift's shortest exact form); nil when a number
    /// is not finite, which JSON cannot carry.
    public var json: String? {
        guard Self.isFinite(accel), Self.isFinite(mag), gyro.map(Self.isFinite) != false else { return nil }
        var text = "{"
        if let timestamp { text += #""timestamp":"\#(timestamp)","# }
        text += #""accel":"# + Self.vector(accel) + #","mag":"# + Self.vector(mag)
        if let gyro { text += #","gyro":"# + Self.vector(gyro) }
        return text + "}"
    }

    private static func vector(_ value: SIMD3<Double>) -> String {
        "[\(value.x),\(value.y),\(value.z)]"
    }
}
