public import Foundation

/// The payload of `stepcompass/{device}/heading` (retained), field for field as the contract lists it. Written by the
/// compass (which also reads its own retained message back after a restart, for the north setting), read by the
/// position service, the dashboard and the client.
///
/// The compass writes every field, values that are not known (no sample yet, no location) as JSON `null`, so a reader
/// can tell "unknown" from a missing field. Readers are more tolerant: every field is optional here and the
/// enumerations (`status`, `north`, `cardinal`, `calibration`) are kept as text, so the dashboard shows whatever a
/// compass (ours or a replacement) publishes, and each reader checks what it uses (``headingStatus``,
/// ``northReference``). `walkingDirection` is read leniently: a value that is not a number counts as absent.
public struct HeadingMessage: Sendable, Hashable, Codable {
    /// The sample's time (ISO 8601 UTC, milliseconds); for a status change, when it was decided.
    public var timestamp: String?
    /// ``HeadingStatus``: whether the numbers are fresh (`ok`) or why not.
    public var status: String?
    /// The heading in degrees [0, 360) in the reference named by ``north``.
    public var heading: Double?
    /// ``NorthReference``: the reference of ``heading``; the device's setting, but magnetic until a location is known.
    public var north: String?
    /// The smoothed magnetic heading in degrees.
    public var magneticHeading: Double?
    /// The true heading in degrees; null until a location is known.
    public var trueHeading: Double?
    /// The WMM2025 declination in degrees east at the device's location; null until one is known.
    public var declination: Double?
    /// The compass point of ``heading`` (`N`, `NE`, ... `NW`).
    public var cardinal: String?
    /// The estimated heading error in degrees, widened in the WMM caution and blackout zones.
    public var accuracy: Double?
    /// Pitch in degrees, positive when the top edge is raised.
    public var pitch: Double?
    /// Roll in degrees, positive when the right edge is lowered.
    public var roll: Double?
    /// The calibration state (`uncalibrated`, `calibrating`, `calibrated`, `needsCalibration`).
    public var calibration: String?
    /// Whether magnetic interference is detected.
    public var interference: Bool?
    /// The corrected, smoothed field strength in µT.
    public var fieldStrength: Double?
    /// The direction the device's owner walks in, degrees [0, 360) in the reference named by ``north`` (like
    /// ``heading``), whatever way the phone is carried; null while unknown (not walking yet, no steps detected).
    /// An addition to the contract's fields.
    public var walkingDirection: Double?

    public init(
        timestamp: String? = nil, status: String?, heading: Double?, north: String? = nil, magneticHeading: Double? = nil,
        trueHeading: Double? = nil, declination: Double? = nil, cardinal: String? = nil, accuracy: Double? = nil,
        pitch: Double? = nil, roll: Double? = nil, calibration: String? = nil, interference: Bool? = nil,
        fieldStrength: Double? = nil, walkingDirection: Double? = nil
    ) {
        self.timestamp = timestamp
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
        self.walkingDirection = walkingDirection
    }

    /// ``status`` when it is one of the contract's values.
    public var headingStatus: HeadingStatus? { status.flatMap(HeadingStatus.init(rawValue:)) }
    /// ``north`` when it is one of the contract's values.
    public var northReference: NorthReference? { north.flatMap(NorthReference.init(rawValue:)) }

    enum CodingKeys: String, CodingKey {
        case timestamp, status, heading, north, magneticHeading, trueHeading, declination, cardinal, accuracy
        case pitch, roll, calibration, interference, fieldStrength, walkingDirection
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timestamp = try container.decodeIfPresent(String.self, forKey: .timestamp)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        heading = try container.decodeIfPresent(Double.self, forKey: .heading)
        north = try container.decodeIfPresent(String.self, forKey: .north)
        magneticHeading = try container.decodeIfPresent(Double.self, forKey: .magneticHeading)
        trueHeading = try container.decodeIfPresent(Double.self, forKey: .trueHeading)
        declination = try container.decodeIfPresent(Double.self, forKey: .declination)
        cardinal = try container.decodeIfPresent(String.self, forKey: .cardinal)
        accuracy = try container.decodeIfPresent(Double.self, forKey: .accuracy)
        pitch = try container.decodeIfPresent(Double.self, forKey: .pitch)
        roll = try container.decodeIfPresent(Double.self, forKey: .roll)
        calibration = try container.decodeIfPresent(String.self, forKey: .calibration)
        interference = try container.decodeIfPresent(Bool.self, forKey: .interference)
        fieldStrength = try container.decodeIfPresent(Double.self, forKey: .fieldStrength)
        walkingDirection = (try? container.decodeIfPresent(Double.self, forKey: .walkingDirection)) ?? nil
    }

    /// Encodes every field, unknown ones as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(status, forKey: .status)
        try container.encode(heading, forKey: .heading)
        try container.encode(north, forKey: .north)
        try container.encode(magneticHeading, forKey: .magneticHeading)
        try container.encode(trueHeading, forKey: .trueHeading)
        try container.encode(declination, forKey: .declination)
        try container.encode(cardinal, forKey: .cardinal)
        try container.encode(accuracy, forKey: .accuracy)
        try container.encode(pitch, forKey: .pitch)
        try container.encode(roll, forKey: .roll)
        try container.encode(calibration, forKey: .calibration)
        try container.encode(interference, forKey: .interference)
        try container.encode(fieldStrength, forKey: .fieldStrength)
        try container.encode(walkingDirection, forKey: .walkingDirection)
    }
}
