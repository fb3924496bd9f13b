/// Detects magnetic interference: a field strength or dip far from the expected values.
///
/// With hysteresis so the flag does not flicker: it is raised when the strength differs from the
/// expected by more than ``enterStrength`` (relative) or the dip by more than ``enterDip``
/// degrees, and cleared only when both are back within ``exitStrength`` and ``exitDip``. A field
/// outside ``plausibleStrength`` (no place on Earth is outside 22–67 µT) counts as interference
/// even without an expectation (``isImplausible(fieldStrength:)``, which ``HeadingPipeline`` also
/// applies before calibration). Feed it smoothed values to ignore single noisy samples.
public struct InterferenceDetector: Sendable, Hashable {
    /// The relative strength deviation that raises the flag.
    public var enterStrength: Double
    /// The relative strength deviation below which the flag may clear.
    public var exitStrength: Double
    /// The dip deviation in degrees that raises the flag.
    public var enterDip: Double
    /// The dip deviation in degrees below which the flag may clear.
    public var exitDip: Double
    /// The strengths in µT that are possible without interference.
    public var plausibleStrength: ClosedRange<Double>
    /// Whether interference is present now.
    public private(set) var isInterfering = false

    /// Creates a detector.
    /// - Parameters:
    ///   - enterStrength: Relative strength deviation that raises the flag (default 15%).
    ///   - exitStrength: Relative strength deviation that clears it (default 10%).
    ///   - enterDip: Dip deviation in degrees that raises the flag (default 8°).
    ///   - exitDip: Dip deviation in degrees that clears it (default 5°).
    ///   - plausibleStrength: Strengths possible without interference (default 15...80 µT).
    public init(
        enterStrength: Double = 0.15, exitStrength: Double = 0.10, enterDip: Double = 8, exitDip: Double = 5,
        plausibleStrength: ClosedRange<Double> = 15...80
    ) {
        self.enterStrength = enterStrength
        self.exitStrength = exitStrength
        self.enterDip = enterDip
        self.exitDip = exitDip
        self.plausibleStrength = plausibleStrength
    }

    /// Updates the flag from a new measurement.
    /// - Parameters:
    ///   - fieldStrength: The measured (corrected) field strength in µT.
    ///   - inclination: The measured dip in degrees, if known (needs gravity).
    ///   - expectedFieldStrength: The expected strength in µT, if known.
    ///   - expectedInclination: The expected dip in degrees, if known.
    /// - Returns: Whether interference is present.
    @discardableResult
    public mutating func update(
        fieldStrength: Double, inclination: Double?, expectedFieldStrength: Double?, expectedInclination: Double?
    ) -> Bool {
        guard fieldStrength.isFinite else { return isInterfering }
        let implausible = !plausibleStrength.contains(fieldStrength)
        var strengthDeviation = 0.0
        if let expectedFieldStrength, expectedFieldStrength > 0 {
            strengthDeviation = abs(fieldStrength - expectedFieldStrength) / expectedFieldStrength
        }
        var dipDeviation = 0.0
        if let inclination, let expectedInclination, inclination.isFinite {
            dipDeviation = abs(inclination - expectedInclination)
        }
        if isInterfering {
            isInterfering = implausible || strengthDeviation > exitStrength || dipDeviation > exitDip
        } else {
            isInterfering = implausible || strengthDeviation > enterStrength || dipDeviation > enterDip
        }
        return isInterfering
    }

    /// Whether a field strength is outside ``plausibleStrength``, i.e. interference whatever the calibration
    /// and the location. It needs no expectation and changes no state, so it serves before calibration.
    /// - Parameter fieldStrength: The measured field strength in µT (raw when there is no calibration).
    /// - Returns: `true` for a finite strength outside ``plausibleStrength``.
    public func isImplausible(fieldStrength: Double) -> Bool {
        fieldStrength.isFinite && !plausibleStrength.contains(fieldStrength)
    }

    /// Clears the flag.
    public mutating func reset() {
        isInterfering = false
    }
}
