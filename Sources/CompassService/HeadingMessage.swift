public import CompassKit
public import ServiceRuntime

/// The payload of `{device}/heading`, field for field as the contract lists it.
///
/// Every field is always present; values that are not known (no sample yet, no location) are
/// JSON `null`, so a reader can tell "unknown" from a missing field.
public struct HeadingMessage: Codable, Sendable, Hashable {
    /// The sample's time (ISO 8601 UTC, milliseconds); for a status change, when it was decided.
    public var timestamp: String
    /// Whether the numbers are fresh (`ok`) or why not.
    public var status: HeadingStatus
    /// The heading in degrees [0, 360) in the reference named by ``north``.
    public var heading: Double?
    /// The reference of ``heading``: the device's setting, but magnetic until a location is known.
    public var north: NorthReference
    /// The smoothed magnetic heading in degrees.
    public var magneticHeading: Double?
    /// The true heading in degrees; null until a location is known.
    public var trueHeading: Double?
    /// The WMM2025 declination in degrees east at the device's location; null until one is known.
    public var declination: Double?
    /// The compass point of ``heading``.
    public var cardinal: Cardinal?
    /// The estimated heading error in degrees, widened in the WMM caution and blackout zones.
    public var accuracy: Double?
    /// Pitch in degrees, positive when the top edge is raised.
    public var pitch: Double?
    /// Roll in degrees, positive when the right edge is lowered.
    public var roll: Double?
    /// The calibration state.
    public var calibration: CalibrationState
    /// Whether magnetic interference is detected.
    public var interference: Bool
    /// The corrected, smoothed field strength in µT.
    public var fieldStrength: Double?
    /// The direction the device's owner walks in, degrees [0, 360) in the reference named by ``north`` (like
    /// ``heading``), whatever way the phone is carried; null while unknown (not walking yet, no steps detected).
    /// An addition to the contract's fields, from `StepDetection`'s `WalkingDirectionEstimator`.
    public var walkingDirection: Double? = nil

    enum CodingKeys: String, CodingKey {
        case timestamp, status, heading, north, magneticHeading, trueHeading, declination, cardinal, accuracy
        case pitch, roll, calibration, interference, fieldStrength, walkingDirection
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
