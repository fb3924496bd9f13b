import Foundation

/// An estimate of the heading error in degrees, for the contract's `accuracy` field.
///
/// Independent error sources are combined as a root sum of squares,
/// `accuracy = √(σ_cal² + σ_strength² + σ_dip² + σ_noise² + σ_tilt²)`, clamped to
/// [``minimum``, 180]:
///
/// - `σ_cal`, the calibration: 30° without one; otherwise `deg(atan(r / H)) + 20 · (1 − q)`, where
///   `r` is the fit's RMS residual, `H` the horizontal field and `q` the quality. A residual
///   perpendicular to the horizontal field turns the heading by atan(r/H), and poor coverage hides
///   error the residual cannot show.
/// - `σ_strength`, a field strength differing from the expected by `δF`: a disturbance of that
///   size turns the heading by up to `deg(atan(δF / H))`.
/// - `σ_dip`, a dip differing from the expected by `δI` degrees: counted one-for-one.
/// - `σ_noise`, the circular standard deviation of recent headings.
/// - `σ_tilt`: `10° · tiltUncertainty` (the heading's sensitivity to tilt errors near vertical)
///   plus the tilt error from linear acceleration, `deg(asin(||a| − g| / g)) · tan(I)` (an error in
///   the vertical turns the large vertical field into a horizontal one).
public struct HeadingAccuracy: Sendable, Hashable {
    /// The smallest accuracy ever reported, in degrees: no phone compass does better.
    public static let minimum = 1.0

    /// The calibration term in degrees.
    public var calibration: Double
    /// The field-strength term in degrees.
    public var fieldStrength: Double
    /// The dip term in degrees.
    public var inclination: Double
    /// The noise term in degrees.
    public var noise: Double
    /// The tilt term in degrees.
    public var tilt: Double

    /// The combined estimate in degrees, in [``minimum``, 180].
    public var degrees: Double {
        let sum =
            calibration * calibration + fieldStrength * fieldStrength + inclination * inclination
            + noise * noise + tilt * tilt
        return max(Self.minimum, min(180, sum.squareRoot()))
    }

    /// Estimates the accuracy.
    /// - Parameters:
    ///   - calibration: The calibration in use, `nil` when uncalibrated.
    ///   - fieldStrength: The measured (corrected) field strength in µT.
    ///   - horizontalFieldStrength: Its horizontal component in µT.
    ///   - expectedFieldStrength: The expected strength in µT (WMM F), if known; else the
    ///     calibration's field strength is the reference.
    ///   - inclination: The measured dip in degrees.
    ///   - expectedInclination: The expected dip in degrees (WMM I), if known.
    ///   - headingNoise: The circular standard deviation of recent headings, degrees.
    ///   - tiltUncertainty: ``Orientation/tiltUncertainty``.
    ///   - accelerationMagnitude: `|a|` in m/s², if known, to detect linear acceleration.
    public init(
        calibration: Calibration?, fieldStrength: Double, horizontalFieldStrength: Double,
        expectedFieldStrength: Double?, inclination: Double, expectedInclination: Double?, headingNoise: Double,
        tiltUncertainty: Double, accelerationMagnitude: Double? = nil
    ) {
        let horizontal = max(horizontalFieldStrength, 1e-6)
        if let calibration {
            self.calibration =
                Angle.degrees(atan(calibration.fitResidual / horizontal))
                + 20 * (1 - max(0, min(1, calibration.quality)))
        } else {
            self.calibration = 30
        }
        if let reference = expectedFieldStrength ?? calibration?.fieldStrength {
            self.fieldStrength = Angle.degrees(atan(abs(fieldStrength - reference) / horizontal))
        } else {
            self.fieldStrength = 0
        }
        if let expectedInclination {
            self.inclination = abs(inclination - expectedInclination)
        } else {
            self.inclination = 0
        }
        self.noise = max(0, headingNoise)
        var tilt = 10 * max(0, min(1, tiltUncertainty))
        if let accelerationMagnitude, accelerationMagnitude.isFinite {
            let excess = min(1, abs(accelerationMagnitude - 9.80665) / 9.80665)
            let dip = min(85, abs(expectedInclination ?? inclination))
            tilt += Angle.degrees(asin(excess)) * tan(Angle.radians(dip))
        }
        self.tilt = tilt
    }
}
