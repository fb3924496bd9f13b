/// A device's `calibration` message: the state of its magnetometer calibration.
public struct CalibrationReport: Sendable, Hashable, Decodable {
    /// `uncalibrated`, `calibrating`, `calibrated` or `needsCalibration`.
    public var state: String
    public var quality: Double?
    public var coverage: Double?
    public var fieldStrength: Double?
    public var expectedFieldStrength: Double?
    /// The compass service's guidance for the user, shown as the calibration prompt.
    public var message: String?

    public init(
        state: String, quality: Double? = nil, coverage: Double? = nil, fieldStrength: Double? = nil,
        expectedFieldStrength: Double? = nil, message: String? = nil
    ) {
        self.state = state
        self.quality = quality
        self.coverage = coverage
        self.fieldStrength = fieldStrength
        self.expectedFieldStrength = expectedFieldStrength
        self.message = message
    }
}
