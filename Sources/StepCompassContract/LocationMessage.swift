/// The payload of `stepcompass/{device}/location`: WGS84 degrees, altitude and accuracies in metres, speed in m/s,
/// course in degrees. All fields but `latitude` and `longitude` are optional. Written by the simulator and the bridge,
/// read by the compass, the marker service, the journal, the dashboard and the client.
///
/// Each reader checks the ranges it relies on. `speed` and `course` are read leniently (iOS sends −1 for "none", and
/// a value of the wrong type counts as absent), so a fix is never rejected for them.
public struct LocationMessage: Sendable, Hashable, Codable {
    public var timestamp: String?
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    public var speed: Double?
    public var course: Double?

    public init(
        latitude: Double, longitude: Double, altitude: Double? = nil, horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil, speed: Double? = nil, course: Double? = nil, timestamp: String? = nil
    ) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
    }

    private enum CodingKeys: String, CodingKey {
        case timestamp, latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy, speed, course
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timestamp = try container.decodeIfPresent(String.self, forKey: .timestamp)
        latitude = try container.decode(Double.self, forKey: .latitude)
        longitude = try container.decode(Double.self, forKey: .longitude)
        altitude = try container.decodeIfPresent(Double.self, forKey: .altitude)
        horizontalAccuracy = try container.decodeIfPresent(Double.self, forKey: .horizontalAccuracy)
        verticalAccuracy = try container.decodeIfPresent(Double.self, forKey: .verticalAccuracy)
        speed = (try? container.decodeIfPresent(Double.self, forKey: .speed)) ?? nil
        course = (try? container.decodeIfPresent(Double.self, forKey: .course)) ?? nil
    }

    /// Writes the fields that are present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(timestamp, forKey: .timestamp)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encodeIfPresent(altitude, forKey: .altitude)
        try container.encodeIfPresent(horizontalAccuracy, forKey: .horizontalAccuracy)
        try container.encodeIfPresent(verticalAccuracy, forKey: .verticalAccuracy)
        try container.encodeIfPresent(speed, forKey: .speed)
        try container.encodeIfPresent(course, forKey: .course)
    }

    /// The message as JSON text, written by hand as the bridge has always written it: `{"timestamp"?, "latitude",
    /// "longitude", ...}` with the optional fields that are known and finite, in the contract's order, numbers
    /// unrounded; nil when the latitude or longitude is not finite.
    public var json: String? {
        guard latitude.isFinite, longitude.isFinite else { return nil }
        var text = "{"
        if let timestamp { text += #""timestamp":"\#(timestamp)","# }
        text += #""latitude":\#(latitude),"longitude":\#(longitude)"#
        for (name, value) in [
            ("altitude", altitude), ("horizontalAccuracy", horizontalAccuracy), ("verticalAccuracy", verticalAccuracy),
            ("speed", speed), ("course", course),
        ] {
            if let value, value.isFinite { text += #","\#(name)":\#(value)"# }
        }
        return text + "}"
    }
}
