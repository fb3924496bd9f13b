public import CompassKit
public import ServiceRuntime

extension HeadingMessage {
    /// The message as the compass writes it: every field, from the compass's own types.
    public init(
        timestamp: String, status: HeadingStatus, heading: Double?, north: NorthReference, magneticHeading: Double?,
        trueHeading: Double?, declination: Double?, cardinal: Cardinal?, accuracy: Double?, pitch: Double?,
        roll: Double?, calibration: CalibrationState, interference: Bool, fieldStrength: Double?,
        walkingDirection: Double? = nil
    ) {
        self.init(
            timestamp: timestamp, status: status.rawValue, heading: heading, north: north.rawValue,
            magneticHeading: magneticHeading, trueHeading: trueHeading, declination: declination,
            cardinal: cardinal?.rawValue, accuracy: accuracy, pitch: pitch, roll: roll, calibration: calibration.rawValue,
            interference: interference, fieldStrength: fieldStrength, walkingDirection: walkingDirection)
    }

    /// ``cardinal`` when it is one of the contract's compass points.
    public var cardinalPoint: Cardinal? { cardinal.flatMap(Cardinal.init(rawValue:)) }
    /// ``calibration`` when it is one of the contract's states.
    public var calibrationState: CalibrationState? { calibration.flatMap(CalibrationState.init(rawValue:)) }
}
