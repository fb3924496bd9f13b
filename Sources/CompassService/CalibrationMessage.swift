public import CompassKit

/// The payload of `{device}/calibration`, retained, which is also how a restarted service gets a
/// device's calibration back.
///
/// `hardIron` is `[0, 0, 0]` and `softIron` the identity while there is no calibration, so the
/// contract's `corrected = softIron · (raw − hardIron)` always holds. `fieldStrength` is the
/// calibration's corrected field strength (the radius of the fitted sphere) in µT, and
/// `expectedFieldStrength` the World Magnetic Model's at the device's location (null until one is
/// known).
public struct CalibrationMessage: Codable, Sendable, Hashable {
    /// The calibration state.
    public var state: CalibrationState
    /// The calibration's quality, 0...1 (0 without one).
    public var quality: Double
    /// The calibration's coverage once calibrated, else the collection's progress, 0...1.
    public var coverage: Double
    /// The hard-iron offset in µT.
    public var hardIron: Vector3
    /// The soft-iron matrix (rows).
    public var softIron: Matrix3
    /// The calibration's corrected field strength in µT, if calibrated.
    public var fieldStrength: Double?
    /// The WMM field strength in µT at the device's location, if known.
    public var expectedFieldStrength: Double?
    /// Guidance for the user.
    public var message: String

    enum CodingKeys: String, CodingKey {
        case state, quality, coverage, hardIron, softIron, fieldStrength, expectedFieldStrength, message
    }

    /// Creates a message.
    /// - Parameters:
    ///   - state: The calibration state.
    ///   - quality: 0...1.
    ///   - coverage: 0...1.
    ///   - hardIron: The hard-iron offset in µT.
    ///   - softIron: The soft-iron matrix.
    ///   - fieldStrength: The corrected field strength in µT, if calibrated.
    ///   - expectedFieldStrength: The model's field strength in µT, if the location is known.
    ///   - message: Guidance for the user.
    public init(
        state: CalibrationState, quality: Double, coverage: Double, hardIron: Vector3, softIron: Matrix3,
        fieldStrength: Double?, expectedFieldStrength: Double?, message: String
    ) {
        self.state = state
        self.quality = quality
        self.coverage = coverage
        self.hardIron = hardIron
        self.softIron = softIron
        self.fieldStrength = fieldStrength
        self.expectedFieldStrength = expectedFieldStrength
        self.message = message
    }

    /// Encodes every field, unknown ones as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(quality, forKey: .quality)
        try container.encode(coverage, forKey: .coverage)
        try container.encode(hardIron, forKey: .hardIron)
        try container.encode(softIron, forKey: .softIron)
        try container.encode(fieldStrength, forKey: .fieldStrength)
        try container.encode(expectedFieldStrength, forKey: .expectedFieldStrength)
        try container.encode(message, forKey: .message)
    }
}
