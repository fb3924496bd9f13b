/// A magnetometer calibration: `corrected = softIron · (raw − hardIron)`, the contract's model.
public struct Calibration: Sendable, Hashable, Codable {
    /// Which fit produced a calibration.
    public enum Model: String, Sendable, Hashable, Codable {
        /// The 4-parameter sphere fit: hard iron only, ``Calibration/softIron`` is the identity.
        case sphere
        /// The 10-parameter ellipsoid fit: hard and soft iron.
        case ellipsoid
        /// Set from outside (restored or configured), not fitted here.
        case external
    }

    /// The hard-iron offset in µT.
    public var hardIron: Vector3
    /// The soft-iron matrix (the identity until an ellipsoid fit).
    public var softIron: Matrix3
    /// How good the calibration is, 0...1 (see ``CalibrationFitter`` for the formula).
    public var quality: Double
    /// The fraction of the orientation sphere the fitted samples covered, 0...1.
    public var coverage: Double
    /// The RMS residual of the fit after correction, in µT.
    public var fitResidual: Double
    /// The radius of the corrected sphere in µT: the field strength a clean reading has after
    /// correction.
    public var fieldStrength: Double
    /// The fit that produced it.
    public var model: Model

    /// Creates a calibration.
    /// - Parameters:
    ///   - hardIron: The hard-iron offset in µT.
    ///   - softIron: The soft-iron matrix.
    ///   - quality: Quality in 0...1.
    ///   - coverage: Coverage in 0...1.
    ///   - fitResidual: RMS residual in µT.
    ///   - fieldStrength: Corrected field strength in µT.
    ///   - model: The fit that produced it.
    public init(
        hardIron: Vector3, softIron: Matrix3 = .identity, quality: Double, coverage: Double, fitResidual: Double,
        fieldStrength: Double, model: Model = .external
    ) {
        self.hardIron = hardIron
        self.softIron = softIron
        self.quality = quality
        self.coverage = coverage
        self.fitResidual = fitResidual
        self.fieldStrength = fieldStrength
        self.model = model
    }

    /// Applies the correction to a raw reading.
    /// - Parameter raw: The raw magnetometer reading in µT.
    /// - Returns: `softIron · (raw − hardIron)`.
    @inlinable
    public func apply(_ raw: Vector3) -> Vector3 {
        softIron * (raw - hardIron)
    }
}
