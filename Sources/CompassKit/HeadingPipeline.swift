import Foundation

/// One device's path from raw IMU samples to a published heading, as a value type.
///
/// Per sample: gravity is low-passed from the accelerometer; the magnetometer reading is
/// corrected with ``calibration``; ``TiltCompensation`` gives the instantaneous orientation; the
/// heading is smoothed as a unit vector (``CircularSmoother``, τ = ``Configuration/smoothing``
/// seconds of sample time; the first sample sets the filter); field strength and dip are
/// low-passed for the ``InterferenceDetector``; and ``HeadingAccuracy`` gives the accuracy. It
/// performs no I/O and allocates nothing per sample; the calibration itself comes from a
/// ``CalibrationFitter`` the caller feeds with the same samples.
public struct HeadingPipeline: Sendable {
    /// The tuning.
    public struct Configuration: Sendable, Hashable {
        /// The heading smoothing time constant in seconds of sample time (contract default 0.25).
        public var smoothing = 0.25
        /// The time constant of the gravity low-pass, seconds; it also smooths pitch and roll.
        public var gravitySmoothing = 0.25
        /// The time constant for field strength and dip, seconds, for interference detection.
        public var fieldSmoothing = 0.5
        /// The time constant, seconds, over which heading noise (the circular spread of raw
        /// headings around the smoothed heading) is measured.
        public var noiseTimeConstant = 1.0
        /// Gaps in sample time longer than this (seconds) reset every filter.
        public var maxGap = 5.0
        /// The largest gyroscope rate in rad/s at which the device counts as steady, which the
        /// dip comparison needs (linear acceleration and rotation corrupt the gravity estimate).
        public var steadyRotationRate = 0.3
        /// The largest deviation of `|accel|` from standard gravity, m/s², for steadiness.
        public var steadyAcceleration = 0.5
        /// The gyroscope fusion used for samples that carry a gyroscope reading (``GyroHeadingFilter``); `nil`
        /// ignores the gyroscope for the heading (then every sample takes the magnetometer-only path).
        public var gyroFusion: GyroHeadingFilter.Configuration? = GyroHeadingFilter.Configuration()

        /// Creates the default configuration.
        public init() {}
    }

    /// The result of one sample.
    public struct Output: Sendable, Hashable {
        /// The smoothed magnetic heading in degrees, [0, 360).
        public var magneticHeading: Double
        /// The smoothed true heading in degrees, or `nil` without a declination.
        public var trueHeading: Double?
        /// The declination used, in degrees east.
        public var declination: Double?
        /// The unsmoothed magnetic heading of this sample.
        public var rawMagneticHeading: Double
        /// Pitch in degrees, [-90, 90], positive top edge raised (from the low-passed gravity).
        public var pitch: Double
        /// Roll in degrees, (-180, 180], positive right edge lowered.
        public var roll: Double
        /// The estimated heading error in degrees.
        public var accuracy: Double
        /// The parts of ``accuracy``.
        public var accuracyComponents: HeadingAccuracy
        /// Whether magnetic interference is detected. With a calibration: the field strength or dip is far
        /// from the expected values (``InterferenceDetector``). Without one (the raw field, whose hard iron
        /// shifts the strength) only a strength that no place on Earth has: the smoothed strength outside
        /// ``InterferenceDetector/plausibleStrength`` (15...80 µT).
        public var interference: Bool
        /// The corrected field strength of this sample in µT.
        public var fieldStrength: Double
        /// The corrected field strength low-passed with ``Configuration/fieldSmoothing``, in µT:
        /// steadier for publishing and what interference detection compares.
        public var smoothedFieldStrength: Double
        /// The dip of this sample in degrees, positive down.
        public var inclination: Double
        /// Whether the device was steady (no strong rotation or linear acceleration).
        public var isSteady: Bool
        /// Whether ``magneticHeading`` came from the gyroscope fusion (the sample carried a gyroscope reading).
        public var isGyroFused = false
        /// The sample's magnetic field corrected with the calibration in use, µT (the raw reading before any).
        public var correctedField: Vector3 = .zero

        /// The heading to publish: true when asked for and a declination is known, else magnetic.
        /// - Parameter preferTrue: Whether the device's setting is true north.
        public func heading(preferTrue: Bool) -> Double {
            preferTrue ? (trueHeading ?? magneticHeading) : magneticHeading
        }
    }

    /// The tuning.
    public let configuration: Configuration
    /// The calibration applied to raw magnetometer readings; `nil` uses them as they are. A new calibration
    /// restarts the gyroscope fusion from the magnetometer (the fused heading was relative to the old one).
    public var calibration: Calibration? {
        didSet { if calibration != oldValue { fusion.reset() } }
    }
    /// The declination in degrees east (WMM D at the device's location), if known.
    public var declination: Double?
    /// The expected field strength in µT (WMM F), if known.
    public var expectedFieldStrength: Double?
    /// The expected dip in degrees (WMM I), if known.
    public var expectedInclination: Double?

    private var gravity: VectorLowPass
    private var heading: CircularSmoother
    private var noise: CircularSmoother
    private var strength: ScalarLowPass
    private var dip: ScalarLowPass
    private var interference = InterferenceDetector()
    private var fusion: GyroHeadingFilter

    /// Creates a pipeline with empty filters.
    /// - Parameters:
    ///   - configuration: The tuning.
    ///   - calibration: The initial calibration, if any.
    ///   - declination: The declination in degrees east, if known.
    public init(
        configuration: Configuration = Configuration(), calibration: Calibration? = nil, declination: Double? = nil
    ) {
        self.configuration = configuration
        self.calibration = calibration
        self.declination = declination
        gravity = VectorLowPass(timeConstant: configuration.gravitySmoothing, maxGap: configuration.maxGap)
        heading = CircularSmoother(timeConstant: configuration.smoothing, maxGap: configuration.maxGap)
        noise = CircularSmoother(timeConstant: configuration.noiseTimeConstant, maxGap: configuration.maxGap)
        strength = ScalarLowPass(timeConstant: configuration.fieldSmoothing, maxGap: configuration.maxGap)
        dip = ScalarLowPass(timeConstant: configuration.fieldSmoothing, maxGap: configuration.maxGap)
        fusion = GyroHeadingFilter(configuration: configuration.gyroFusion ?? GyroHeadingFilter.Configuration())
    }

    /// Processes one IMU sample.
    /// - Parameters:
    ///   - timestamp: Sample time in seconds (any epoch, as long as it is consistent).
    ///   - accel: Accelerometer in m/s², device frame, including gravity.
    ///   - mag: Raw magnetometer in µT, device frame.
    ///   - gyro: Gyroscope in rad/s, if available: it judges steadiness and, with
    ///     ``Configuration/gyroFusion``, carries the heading (``GyroHeadingFilter``), the magnetometer correcting
    ///     it slowly and less while the field strength or dip is off. Without it the heading is the smoothed
    ///     magnetometer heading.
    /// - Returns: The new state, or `nil` when the sample is unusable (non-finite, zero vectors,
    ///   field parallel to gravity); the filters then keep their state.
    public mutating func process(timestamp: Double, accel: Vector3, mag: Vector3, gyro: Vector3? = nil) -> Output? {
        guard timestamp.isFinite, accel.isFinite, mag.isFinite else { return nil }
        let field = calibration?.apply(mag) ?? mag
        var filtered = gravity
        let g = filtered.update(accel, at: timestamp)
        guard let orientation = TiltCompensation.orientation(gravity: g, magneticField: field) else { return nil }
        gravity = filtered

        var smoothed = heading.update(east: orientation.headingEast, north: orientation.headingNorth, at: timestamp)
        var fused = false
        var weight = 1.0
        if let gyro, configuration.gyroFusion != nil,
            let rate = GyroHeadingFilter.yawRate(gyro: gyro, gravity: g)
        {
            // The field strength and dip are meaningful only after a calibration (hard iron shifts both).
            if calibration != nil {
                weight = GyroHeadingFilter.magnetometerWeight(
                    fieldStrength: orientation.fieldStrength,
                    expectedFieldStrength: expectedFieldStrength ?? calibration?.fieldStrength,
                    inclination: orientation.inclination, expectedInclination: expectedInclination,
                    configuration: fusion.configuration)
            }
            if fusion.heading == nil {
                // Start from the magnetometer's smoothed heading (the first sample: the raw one).
                fusion.update(time: timestamp, yawRate: rate, magneticHeading: smoothed, magnetometerWeight: weight)
            } else {
                smoothed = fusion.update(
                    time: timestamp, yawRate: rate, magneticHeading: orientation.heading, magnetometerWeight: weight,
                    rotationSpeed: gyro.norm, horizontalRotation: Self.horizontalRotation(gyro, gravity: g))
            }
            fused = true
        } else if fusion.heading != nil {
            fusion.reset()
        }
        // Noise is the scatter of raw headings around the smoothed track, so a steady turn (a
        // constant lag) does not count as noise.
        let residual = Angle.radians(Angle.difference(from: smoothed, to: orientation.heading))
        noise.update(east: sin(residual), north: cos(residual), at: timestamp)
        let accelerationMagnitude = accel.norm
        let rotating =
            gyro.map { $0.squaredNorm > configuration.steadyRotationRate * configuration.steadyRotationRate } ?? false
        let steady = !rotating && abs(accelerationMagnitude - 9.80665) <= configuration.steadyAcceleration
        let meanStrength = strength.update(orientation.fieldStrength, at: timestamp)
        let meanDip = dip.update(orientation.inclination, at: timestamp)

        let interfering: Bool
        if calibration != nil {
            interfering = interference.update(
                fieldStrength: meanStrength, inclination: steady ? meanDip : nil,
                expectedFieldStrength: expectedFieldStrength ?? calibration?.fieldStrength,
                expectedInclination: expectedInclination)
        } else {
            // No calibration: only a field far outside what the World Magnetic Model allows anywhere.
            interfering = interference.isImplausible(fieldStrength: meanStrength)
        }
        let accuracy = HeadingAccuracy(
            calibration: calibration, fieldStrength: meanStrength,
            horizontalFieldStrength: orientation.horizontalFieldStrength, expectedFieldStrength: expectedFieldStrength,
            inclination: meanDip, expectedInclination: steady ? expectedInclination : nil,
            headingNoise: noise.circularStandardDeviation, tiltUncertainty: orientation.tiltUncertainty,
            accelerationMagnitude: accelerationMagnitude)
        return Output(
            magneticHeading: smoothed,
            trueHeading: declination.map { Angle.trueHeading(magnetic: smoothed, declination: $0) },
            declination: declination, rawMagneticHeading: orientation.heading,
            pitch: orientation.pitch, roll: orientation.roll, accuracy: accuracy.degrees,
            accuracyComponents: accuracy, interference: interfering, fieldStrength: orientation.fieldStrength,
            smoothedFieldStrength: meanStrength,
            inclination: orientation.inclination, isSteady: steady, isGyroFused: fused, correctedField: field)
    }

    /// The rotation rate about horizontal axes, rad/s: the gyroscope without its component along gravity.
    static func horizontalRotation(_ gyro: Vector3, gravity: Vector3) -> Double {
        let g = gravity.norm
        guard g > 1e-6 else { return gyro.norm }
        let vertical = gyro.dot(gravity) / g
        return max(0, gyro.squaredNorm - vertical * vertical).squareRoot()
    }

    /// Forgets the filters' state (not the calibration or the declination); the next sample sets
    /// them.
    public mutating func reset() {
        gravity.reset()
        heading.reset()
        noise.reset()
        strength.reset()
        dip.reset()
        interference.reset()
        fusion.reset()
    }
}
