/// The calibration state published in the contract's `calibration` field.
public enum CalibrationState: String, Sendable, Hashable, Codable, CaseIterable {
    /// No calibration, and no data collected yet.
    case uncalibrated
    /// Collecting data; a provisional calibration (e.g. a sphere fit) may already be in use.
    case calibrating
    /// A calibration with good quality and coverage is in use.
    case calibrated
    /// The calibration in use no longer matches the field (the hard iron changed, or lasting
    /// interference); the user should calibrate again.
    case needsCalibration
}
