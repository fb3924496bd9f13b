extension CalibrationFitter {
    /// The tuning of a ``CalibrationFitter``; the defaults suit a phone sampled at 50–100 Hz.
    public struct Configuration: Sendable, Hashable {
        /// The most samples kept for fitting. When full, a new sample replaces the oldest sample
        /// of the most crowded direction cell, so a long flat walk cannot push out the tilted
        /// samples of an earlier figure-8.
        public var maxSamples = 600
        /// The number of direction cells for ``SphereCoverage``.
        public var binCount = 64
        /// The shortest sample-time interval, in seconds, between samples that are examined;
        /// faster samples are skipped without work (decimation).
        public var minSampleInterval = 0.02
        /// The smallest change in µT from the last kept sample for a new one to be kept, so a
        /// still device does not fill the buffer with copies of one reading.
        public var minSampleDistance = 2.0
        /// Refit after this many newly kept samples.
        public var fitInterval = 20
        /// The fewest samples for a sphere fit (MotionCal uses 40).
        public var minSamplesForSphere = 40
        /// The fewest samples for an ellipsoid fit (MotionCal uses 150).
        public var minSamplesForEllipsoid = 150
        /// The coverage needed before the ellipsoid fit is tried; below it the fit is unreliable
        /// (near-level data give hyperboloids or wildly wrong offsets).
        public var ellipsoidMinCoverage = 0.5
        /// The coverage a calibration needs for the `calibrated` state.
        public var calibratedMinCoverage = 0.35
        /// The quality a calibration needs for the `calibrated` state.
        public var calibratedMinQuality = 0.5
        /// The relative residual (residual ÷ radius) at which the quality's error score reaches
        /// 0; 5% follows MotionCal's acceptance limit.
        public var residualForZeroQuality = 0.05
        /// The coverage at which the quality's coverage score saturates.
        public var coverageForFullQuality = 0.7
        /// The largest relative deviation of a corrected sample's strength from the
        /// calibration's field strength for the sample to pass the gate.
        public var strengthTolerance = 0.2
        /// The largest deviation in degrees of a steady sample's dip from the expected
        /// inclination for it to pass the gate.
        public var dipTolerance = 10.0
        /// The range of plausible raw field radii in µT for a fit (MotionCal: 15...80; wider
        /// here for sensors with gain errors).
        public var plausibleRadius: ClosedRange<Double> = 15...100
        /// The largest relative difference between a fit's raw radius and the expected field
        /// strength, when that is known.
        public var expectedRadiusTolerance = 0.35
        /// The time constant, in seconds of sample time, of the running fraction of checked
        /// samples that disagree with the calibration (an exponential average of 0/1).
        public var inconsistencyTimeConstant = 10.0
        /// The disagreeing fraction above which `calibrated` becomes `needsCalibration`. Fully
        /// disagreeing samples reach 0.6 after about 9 s, so a passing disturbance does not
        /// trigger it, while a moved hard iron (which leaves some orientations agreeing by
        /// chance) still does.
        public var needsCalibrationRatio = 0.6
        /// The disagreeing fraction below which `needsCalibration` returns to `calibrated` (the
        /// disturbance was temporary).
        public var recoveredRatio = 0.1
        /// How far, in m/s², the accelerometer magnitude may differ from standard gravity for a
        /// sample to count as steady, which the dip check needs.
        public var steadyAccelerationTolerance = 0.5

        /// Creates the default configuration.
        public init() {}
    }

    /// What ``CalibrationFitter/add(_:at:gravity:)`` did with a sample.
    public enum SampleResult: Sendable, Hashable {
        /// Stored for fitting.
        case kept
        /// Not needed (too soon after the last examined sample, or too close to the last kept
        /// one); this is not an error.
        case skipped
        /// Refused by the gate: the corrected field strength is too far from the calibration's.
        case rejectedFieldStrength
        /// Refused by the gate: the dip is too far from the expected inclination.
        case rejectedInclination
        /// Not finite.
        case invalid
    }
}
