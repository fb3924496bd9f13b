public import CompassKit

/// The payload of `{device}/heading`, field for field as the contract lists it.
///
/// Every field is always present; values that are not known (no sample yet, no location) are
/// JSON `null`, so a reader can tell "unknown" from a missing field.
public struct HeadingMessage: Codable, Sendable, Hashable {
    public var timestamp: String
    public var status: HeadingStatus
    public var heading: Double?
    public var north: NorthReference
    public var magneticHeading: Double?
    public var trueHeading: Double?
    public var declination: Double?
    public var cardinal: Cardinal?
    public var accuracy: Double?
    public var pitch: Double?
    public var roll: Double?
    public var calibration: CalibrationState
    public var interference: Bool
    public var fieldStrength: Double?

    enum CodingKeys: String, CodingKey {
        case timestamp, status, heading, north, magneticHeading, trueHeading, declination, cardinal, accuracy
        case pitch, roll, calibration, interference, fieldStrength
    }

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
    }
}
