/// One contract location: `{"timestamp","latitude","longitude","altitude"?,"horizontalAccuracy"?,
/// "verticalAccuracy"?,"speed"?,"course"?}`. Invalid optional values (negative accuracies, speeds
/// or courses, as phones report them) are `nil`.
public struct LocationSample: Sendable, Hashable, Codable {
    /// Seconds since 1970 (or since the start of a relative export).
    public var timestamp: Double
    /// Degrees north, -90...90.
    public var latitude: Double
    /// Degrees east, -180...180.
    public var longitude: Double
    /// Metres, as the source reports it (Sensor Logger: above the WGS84 ellipsoid).
    public var altitude: Double?
    /// Metres (radius of uncertainty).
    public var horizontalAccuracy: Double?
    /// Metres.
    public var verticalAccuracy: Double?
    /// Metres per second.
    public var speed: Double?
    /// Degrees clockwise from true north, 0..<360.
    public var course: Double?

    /// Creates a location.
    public init(
        timestamp: Double, latitude: Double, longitude: Double, altitude: Double? = nil,
        horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil,
        speed: Double? = nil, course: Double? = nil
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
}

extension LocationSample {
    /// Makes a location from raw values, checking ranges and dropping invalid optional values.
    /// Throws the bare reason (the caller prefixes where it came from).
    static func validated(
        timestamp: Double, latitude: Double, longitude: Double, altitude: Double?,
        horizontalAccuracy: Double?, verticalAccuracy: Double?, speed: Double?, course: Double?,
        names: (latitude: String, longitude: String)
    ) throws(PhoneFormatError) -> LocationSample {
        guard (-90.0...90.0).contains(latitude) else { throw PhoneFormatError("\(names.latitude) is out of range (\(latitude))") }
        guard (-180.0...180.0).contains(longitude) else { throw PhoneFormatError("\(names.longitude) is out of range (\(longitude))") }
        func nonNegative(_ value: Double?) -> Double? {
            guard let value, value.isFinite, value >= 0 else { return nil }
            return value
        }
        var heading = nonNegative(course)
        if let value = heading { heading = value.truncatingRemainder(dividingBy: 360) }
        return LocationSample(
            timestamp: timestamp, latitude: latitude, longitude: longitude,
            altitude: altitude.flatMap { $0.isFinite ? $0 : nil },
            horizontalAccuracy: nonNegative(horizontalAccuracy), verticalAccuracy: nonNegative(verticalAccuracy),
            speed: nonNegative(speed), course: heading
        )
    }
}
