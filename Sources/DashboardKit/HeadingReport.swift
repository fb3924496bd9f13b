/// A device's `heading` message from the compass service.
///
/// Every field but `status` is optional here: the dashboard shows whatever a compass service (ours or
/// a user's replacement) publishes, and a `stale` or `noSensor` heading carries nulls.
public struct HeadingReport: Sendable, Hashable, Decodable {
    public var timestamp: String?
    /// `ok`, `stale`, `noPermission` or `noSensor`; kept as text so an unknown value still shows.
    public var status: String
    public var heading: Double?
    /// `true` or `magnetic`: the reference of `heading`.
    public var north: String?
    public var magneticHeading: Double?
    public var trueHeading: Double?
    public var declination: Double?
    public var cardinal: String?
    public var accuracy: Double?
    public var pitch: Double?
    public var roll: Double?
    public var calibration: String?
    public var interference: Bool?
    public var fieldStrength: Double?

    public init(
        status: String = "ok", heading: Double?, north: String? = "true", magneticHeading: Double? = nil,
        trueHeading: Double? = nil, declination: Double? = nil, cardinal: String? = nil, accuracy: Double? = nil,
        pitch: Double? = nil, roll: Double? = nil, calibration: String? = nil, interference: Bool? = nil,
        fieldStrength: Double? = nil, timestamp: String? = nil
    ) {
        self.status = status
        self.heading = heading
        self.north = north
        self.magneticHeading = magneticHeading
        self.trueHeading = trueHeading
        self.declination = declination
        self.cardinal = cardinal
        self.accuracy = accuracy
        self.pitch = pitch
        self.roll = roll
        self.calibration = calibration
        self.interference = interference
        self.fieldStrength = fieldStrength
        self.timestamp = timestamp
    }
}
