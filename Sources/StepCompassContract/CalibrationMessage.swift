/// The payload of `stepcompass/{device}/calibration` (retained): the state of a device's magnetometer calibration.
/// Written by the compass (which also reads its own retained message back after a restart: how a restarted service
/// gets a device's calibration back), read by the dashboard and the client.
///
/// `hardIron` is `[0, 0, 0]` and `softIron` the identity while there is no calibration, so the contract's
/// `corrected = softIron · (raw − hardIron)` always holds. `fieldStrength` is the calibration's corrected field
/// strength (the radius of the fitted sphere) in µT, and `expectedFieldStrength` the World Magnetic Model's at the
/// device's location (null until one is known).
///
/// The compass writes every field; readers need only `state` (kept as text, so the dashboard shows an unknown one) and
/// check what else they use.
public struct CalibrationMessage: Codable, Sendable, Hashable {
    /// The calibration state: `uncalibrated`, `calibrating`, `calibrated` or `needsCalibration`.
    public var state: String
    /// The calibration's quality, 0...1 (0 without one).
    public var quality: Double?
    /// The calibration's coverage once calibrated, else the collection's progress, 0...1.
    public var coverage: Double?
    /// The hard-iron offset in µT.
    public var hardIron: SIMD3<Double>?
    /// The soft-iron matrix: three rows of three numbers.
    public var softIron: [SIMD3<Double>]?
    /// The calibration's corrected field strength in µT, if calibrated.
    public var fieldStrength: Double?
    /// The WMM field strength in µT at the device's location, if known.
    public var expectedFieldStrength: Double?
    /// Guidance for the user.
    public var message: String?

    public init(
        state: String, quality: Double? = nil, coverage: Double? = nil, hardIron: SIMD3<Double>? = nil,
        softIron: [SIMD3<Double>]? = nil, fieldStrength: Double? = nil, expectedFieldStrength: Double? = nil,
        message: String? = nil
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

    enum CodingKeys: String, CodingKey {
        case state, quality, coverage, hardIron, softIron, fieldStrength, expectedFieldStrength, message
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        state = try container.decode(String.self, forKey: .state)
        quality = try container.decodeIfPresent(Double.self, forKey: .quality)
        coverage = try container.decodeIfPresent(Double.self, forKey: .coverage)
        hardIron = try container.decodeIfPresent(Triple.self, forKey: .hardIron)?.value
        softIron = try container.decodeIfPresent(Rows.self, forKey: .softIron)?.rows
        fieldStrength = try container.decodeIfPresent(Double.self, forKey: .fieldStrength)
        expectedFieldStrength = try container.decodeIfPresent(Double.self, forKey: .expectedFieldStrength)
        message = try container.decodeIfPresent(String.self, forKey: .message)
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

    /// `[x, y, z]`: exactly three numbers.
    private struct Triple: Decodable {
        var value: SIMD3<Double>

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            let x = try container.decode(Double.self)
            let y = try container.decode(Double.self)
            let z = try container.decode(Double.self)
            guard container.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a vector has exactly three components")
            }
            value = SIMD3(x, y, z)
        }
    }

    /// Exactly three rows of three numbers.
    private struct Rows: Decodable {
        var rows: [SIMD3<Double>]

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            let r0 = try container.decode(Triple.self).value
            let r1 = try container.decode(Triple.self).value
            let r2 = try container.decode(Triple.self).value
            guard container.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a matrix has exactly three rows")
            }
            rows = [r0, r1, r2]
        }
    }
}
