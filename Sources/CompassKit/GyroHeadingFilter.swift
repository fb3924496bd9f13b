import Foundation

/// Gyroscope-aided heading: a complementary filter in which the gyroscope's rate about the vertical carries the
/// heading from sample to sample and the magnetometer pulls it back slowly.
///
/// Per sample, with `dt` the time since the previous one (seconds of sample time, injected by the caller):
///
/// 1. **Prediction.** The yaw rate is the rotation rate projected on the vertical, `ω · up` with `up` the unit
///    gravity direction in the device frame (the accelerometer points up). A positive rotation about `up` turns the
///    device counter-clockwise seen from above, so the compass heading changes by `−(ω · up − b) · dt`, where `b`
///    is the estimated gyro bias about the vertical.
/// 2. **Correction.** The innovation `e` is the signed smallest angle from the predicted heading to the
///    magnetometer's (tilt-compensated, unsmoothed) heading. The heading moves by `k · e` and the bias by
///    `+kᵢ · e · dt` (a PI loop, as in Mahony's filter), with `k = 1 − exp(−w · dt / τ)`, τ =
///    ``Configuration/magnetometerTimeConstant`` and `kᵢ = w / (τ · ``Configuration/biasTimeConstant``)`.
/// 3. **Magnetometer weight** `w` in 0...1 (``magnetometerWeight(fieldStrength:expectedFieldStrength:inclination:expectedInclination:configuration:)``):
///    `exp(−(δF/σF)² − (δI/σI)²)`, with `δF` the relative deviation of the field strength from the expected, `δI`
///    the dip's deviation in degrees. Near steel or walls the field is bent and usually also stronger or weaker
///    and steeper or flatter; there the weight falls towards zero and the gyroscope carries the heading through.
///
/// Large innovations with a trusted magnetometer are corrected faster (``Configuration/fastCorrectionThreshold``),
/// and the bias is learned only from small innovations while the device turns slowly.
///
/// The first sample (and the first after a gap over ``Configuration/maxGap`` or a time going backwards) sets the
/// heading to the magnetometer's. Pure value, no clock, no allocation.
public struct GyroHeadingFilter: Sendable, Hashable {
    /// The tuning.
    public struct Configuration: Sendable, Hashable {
        /// How fast an undisturbed magnetometer corrects the heading, seconds.
        public var magnetometerTimeConstant = 2.0
        /// How slowly the gyro bias estimate follows, as a multiple of ``magnetometerTimeConstant``: the bias loop's
        /// gain is `1 / (magnetometerTimeConstant · biasTimeConstant)` per second², an overdamped PI loop that
        /// settles in about `magnetometerTimeConstant · biasTimeConstant` seconds.
        public var biasTimeConstant = 16.0
        /// The largest gyro bias about the vertical the filter may estimate, rad/s.
        public var maximumBias = 0.02
        /// The bias is learned only while the device turns slower than this (rad/s, all axes) and the innovation
        /// is below ``biasInnovationLimit``: fast rotations (a figure-8) make the vertical projection inexact, and
        /// their errors are not a bias.
        public var biasLearningRotation = 0.5
        /// The largest innovation (degrees) from which the bias is learned.
        public var biasInnovationLimit = 10.0
        /// An innovation above this many degrees (with a trusted magnetometer) is corrected faster, the time constant
        /// shrinking with the square of the ratio:
        /// after fast rotations or a new calibration the heading catches up in a fraction of a second instead of
        /// several time constants. Interference keeps the weight, and so the correction, low.
        public var fastCorrectionThreshold = 5.0
        /// The fast correction applies only while the heading turns slower than this (degrees per second): in a
        /// turn the magnetometer's own heading is off (the centripetal acceleration tilts the gravity estimate).
        public var fastCorrectionMaximumTurn = 20.0
        /// The shortest correction time constant, seconds (the contract's smoothing).
        public var minimumTimeConstant = 0.25
        /// A rotation about a horizontal axis faster than this (rad/s) makes `ω · up` an inexact heading rate (the
        /// tilted device's projected top turns too, and the gravity estimate lags): the magnetometer then corrects
        /// with ``minimumTimeConstant`` (a figure-8, picking the phone up). Turning while walking is about the
        /// vertical and keeps the slow correction.
        public var tumblingRate = 0.6
        /// The relative field-strength deviation at which the magnetometer weight falls to 1/e.
        public var strengthTolerance = 0.05
        /// The dip deviation (degrees) at which the magnetometer weight falls to 1/e.
        public var dipTolerance = 4.0
        /// Gaps in sample time longer than this (seconds) restart the filter from the magnetometer.
        public var maxGap = 5.0

        /// The defaults.
        public init() {}
    }

    /// The tuning.
    public let configuration: Configuration
    /// The fused heading in degrees [0, 360) (in the magnetometer's reference), or nil before the first sample.
    public private(set) var heading: Double?
    /// The estimated gyro bias about the vertical, rad/s (positive: the gyro reads counter-clockwise too much).
    public private(set) var bias = 0.0
    private var lastTime = 0.0

    /// An empty filter.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Forgets the heading and the bias.
    public mutating func reset() {
        heading = nil
        bias = 0
        lastTime = 0
    }

    /// The heading rate in degrees per second, clockwise positive, from a gyroscope reading (rad/s) and the gravity
    /// direction (the accelerometer or its low-pass, m/s², any length), both in the device frame. Nil when gravity is
    /// degenerate.
    public static func yawRate(gyro: Vector3, gravity: Vector3) -> Double? {
        let g = gravity.norm
        guard g > 1e-6, g.isFinite, gyro.isFinite else { return nil }
        return -Angle.degrees(gyro.dot(gravity) / g)
    }

    /// The magnetometer's weight in 0...1 from how far the field strength (µT) and dip (degrees) are from the
    /// expected values; an unknown expectation (or measurement) does not lower it.
    public static func magnetometerWeight(
        fieldStrength: Double?, expectedFieldStrength: Double?, inclination: Double?, expectedInclination: Double?,
        configuration: Configuration = Configuration()
    ) -> Double {
        var exponent = 0.0
        if let fieldStrength, let expectedFieldStrength, expectedFieldStrength > 0, fieldStrength.isFinite {
            let deviation = (fieldStrength - expectedFieldStrength) / expectedFieldStrength / configuration.strengthTolerance
            exponent += deviation * deviation
        }
        if let inclination, let expectedInclination, inclination.isFinite, expectedInclination.isFinite {
            let deviation = (inclination - expectedInclination) / configuration.dipTolerance
            exponent += deviation * deviation
        }
        return exp(-min(exponent, 50))
    }

    /// Processes one sample.
    /// - Parameters:
    ///   - time: Sample time in seconds (any consistent epoch).
    ///   - yawRate: The heading rate in degrees per second, clockwise (``yawRate(gyro:gravity:)``).
    ///   - magneticHeading: The magnetometer's heading of this sample, degrees.
    ///   - magnetometerWeight: 0...1, how much the magnetometer is trusted now.
    ///   - rotationSpeed: The gyroscope's norm in rad/s (all axes), which gates the bias learning.
    ///   - horizontalRotation: The rotation rate about horizontal axes, rad/s (see ``Configuration/tumblingRate``).
    /// - Returns: The fused heading in degrees, [0, 360).
    @discardableResult
    public mutating func update(
        time: Double, yawRate: Double, magneticHeading: Double, magnetometerWeight: Double, rotationSpeed: Double = 0,
        horizontalRotation: Double = 0
    ) -> Double {
        let weight = magnetometerWeight.isFinite ? max(0, min(1, magnetometerWeight)) : 0
        guard let current = heading, time.isFinite, time > lastTime - 1e-12,
            time - lastTime <= configuration.maxGap, yawRate.isFinite
        else {
            if time.isFinite { lastTime = time }
            bias = heading == nil ? 0 : bias
            heading = Angle.normalized(magneticHeading)
            return heading!
        }
        let dt = max(0, time - lastTime)
        lastTime = time
        guard dt > 0 else { return current }
        // Bias is rad/s counter-clockwise; the heading rate is clockwise degrees.
        let predicted = current + (yawRate + Angle.degrees(bias)) * dt
        let innovation = Angle.difference(from: predicted, to: magneticHeading)
        let tau = max(configuration.magnetometerTimeConstant, 1e-3)
        var fastTau = tau
        let size = abs(innovation)
        if horizontalRotation > configuration.tumblingRate {
            fastTau = configuration.minimumTimeConstant
        } else if size > configuration.fastCorrectionThreshold, abs(yawRate) < configuration.fastCorrectionMaximumTurn {
            let ratio = configuration.fastCorrectionThreshold / size
            fastTau = max(configuration.minimumTimeConstant, tau * ratio * ratio)
        }
        let gain = 1 - exp(-weight * dt / fastTau)
        if size < configuration.biasInnovationLimit, rotationSpeed < configuration.biasLearningRotation {
            let integral = weight / (tau * max(configuration.biasTimeConstant, 1e-3))
            // A heading that lags the magnetometer clockwise means the gyro under-reads clockwise turns: the rate
            // reads too counter-clockwise, so the counter-clockwise bias grows.
            bias += Angle.radians(innovation) * integral * dt
            bias = max(-configuration.maximumBias, min(configuration.maximumBias, bias))
        }
        let fused = Angle.normalized(predicted + gain * innovation)
        heading = fused
        return fused
    }
}
