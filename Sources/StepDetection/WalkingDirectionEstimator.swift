import Foundation

/// Estimates the direction a person walks in, whatever way the phone is carried (in a pocket or swinging in the
/// hand the phone does not point where its owner goes).
///
/// Feed every sample to ``add(time:acceleration:magneticField:rotationRate:)`` and every step the
/// ``StepDetector`` finds to ``addStep(at:)``; read ``direction``.
///
/// The method:
/// 1. Gravity (device frame) is a low-pass of the accelerometer, the magnetic field the same low-pass of the
///    magnetometer; with a gyroscope both are also carried along by the rotation rate between samples (a
///    complementary filter), which keeps them right when the phone swings. North is the field projected on the
///    plane normal to gravity; east = north × up.
/// 2. The linear acceleration (accelerometer − gravity) is split into east, north and up components. Over each
///    stride (two steps) the horizontal components' covariance gives the principal axis, the walking line.
/// 3. Which way along that line: while walking, the forward acceleration leads the vertical acceleration by a
///    quarter of a step (inverted-pendulum gait: the body is slowest at mid-stance, highest, then accelerates
///    forward while falling, and brakes at heel strike, when the upward acceleration peaks). So the forward
///    acceleration is anti-correlated with the vertical *velocity*; the sign of the covariance of the axis
///    component with the (leaky-integrated) vertical velocity picks the forward end of the axis.
/// 4. Each stride's forward vector, weighted by how elongated the horizontal acceleration was, is averaged over
///    recent strides; the direction is its azimuth, degrees clockwise from magnetic north.
public struct WalkingDirectionEstimator: Sendable {
    /// Time constant (s) of the accelerometer low-pass that gives gravity (without a gyroscope).
    public var gravityTimeConstant: Double
    /// Time constant (s) of the accelerometer correction when a gyroscope carries gravity along.
    public var gyroGravityTimeConstant: Double
    /// How many recent strides the direction averages (the weight of a new stride is 1 / this).
    public var strideMemory: Double

    /// The walking direction, degrees clockwise from magnetic north in [0, 360), or nil while unknown.
    public var direction: Double? {
        guard strides >= 2 else { return nil }
        let length = (heading.x * heading.x + heading.y * heading.y).squareRoot()
        guard length > 1e-6 else { return nil }
        var degrees = atan2(heading.x, heading.y) * 180 / Double.pi
        if degrees < 0 { degrees += 360 }
        if degrees >= 360 { degrees -= 360 }
        return degrees
    }

    /// Strides analysed so far.
    public private(set) var strides = 0

    private var hasSample = false
    private var lastTime = 0.0
    private var gravity = SIMD3<Double>(0, 0, 0)
    private var magnetic = SIMD3<Double>(0, 0, 0)
    private var hasMagnetic = false
    private var verticalVelocity = 0.0
    private var verticalMean = 0.0
    // Sums over the current stride (east, north, vertical velocity).
    private var count = 0.0
    private var sumE = 0.0, sumN = 0.0, sumV = 0.0
    private var sumEE = 0.0, sumNN = 0.0, sumEN = 0.0
    private var sumEV = 0.0, sumNV = 0.0
    private var stepsInStride = 0
    // (east, north) of the averaged forward direction.
    private var heading = SIMD2<Double>(0, 0)

    /// An estimator with the given time constants (seconds) and stride memory.
    public init(gravityTimeConstant: Double = 0.8, gyroGravityTimeConstant: Double = 3, strideMemory: Double = 4) {
        self.gravityTimeConstant = gravityTimeConstant
        self.gyroGravityTimeConstant = gyroGravityTimeConstant
        self.strideMemory = strideMemory
    }

    /// Forgets everything.
    public mutating func reset() {
        self = WalkingDirectionEstimator(
            gravityTimeConstant: gravityTimeConstant,
            gyroGravityTimeConstant: gyroGravityTimeConstant,
            strideMemory: strideMemory
        )
    }

    /// One sample: `acceleration` in m/s² including gravity, `magneticField` in µT (nil when the magnetometer has
    /// no new reading: the last one is kept), `rotationRate` in rad/s (optional), all in the device frame.
    public mutating func add(
        time: Double,
        acceleration: SIMD3<Double>,
        magneticField: SIMD3<Double>?,
        rotationRate: SIMD3<Double>? = nil
    ) {
        guard time.isFinite else { return }
        var field: SIMD3<Double>?
        if let magneticField, magneticField.x.isFinite, magneticField.y.isFinite, magneticField.z.isFinite {
            field = magneticField
            if !hasMagnetic {
                magnetic = magneticField
                hasMagnetic = true
            }
        }
        guard !hasSample || time > lastTime else { return }
        if !hasSample {
            hasSample = true
            lastTime = time
            gravity = acceleration
            return
        }
        var dt = time - lastTime
        lastTime = time
        if dt > 0.5 {
            // A gap: start the stride again and take gravity afresh.
            gravity = acceleration
            if let field { magnetic = field }
            clearStride()
            verticalVelocity = 0
            return
        }
        dt = max(dt, 0)
        var timeConstant = gravityTimeConstant
        if let w = rotationRate {
            // A vector fixed in the world turns the other way in the device frame: dv/dt = −ω × v.
            gravity -= Self.cross(w, gravity) * dt
            magnetic -= Self.cross(w, magnetic) * dt
            timeConstant = gyroGravityTimeConstant
        }
        let alpha = dt / (timeConstant + dt)
        gravity += (acceleration - gravity) * alpha
        // The field gets the same filter as gravity, so both describe the same (mean) attitude: in a pocket the
        // phone pitches ±35° per stride, and an instantaneous field on a mean horizontal plane would swing north.
        if let field { magnetic += (field - magnetic) * alpha }
        guard hasMagnetic else { return }

        let g = (gravity * gravity).sum().squareRoot()
        guard g > 1 else { return }
        let up = gravity / g
        let horizontalField = magnetic - up * (magnetic * up).sum()
        let fieldLength = (horizontalField * horizontalField).sum().squareRoot()
        guard fieldLength > 1e-3 else { return }
        let north = horizontalField / fieldLength
        let east = Self.cross(north, up)
        let linear = acceleration - gravity
        let e = (linear * east).sum()
        let n = (linear * north).sum()
        let u = (linear * up).sum()
        // Vertical velocity: leaky integral of the vertical acceleration (drift removed with a 1 s time constant).
        verticalMean += (u - verticalMean) * (dt / (1 + dt))
        verticalVelocity += (u - verticalMean) * dt
        verticalVelocity -= verticalVelocity * (dt / (1 + dt))
        let v = verticalVelocity
        count += 1
        sumE += e
        sumN += n
        sumV += v
        sumEE += e * e
        sumNN += n * n
        sumEN += e * n
        sumEV += e * v
        sumNV += n * v
    }

    /// Tells the estimator a step happened at `time` (pass each ``DetectedStep/time``, in order). Every second step
    /// closes a stride and updates ``direction``.
    public mutating func addStep(at time: Double) {
        _ = time
        stepsInStride += 1
        guard stepsInStride >= 2 else { return }
        defer { clearStride() }
        guard count >= 10 else { return }
        let meanE = sumE / count
        let meanN = sumN / count
        let meanV = sumV / count
        let cEE = sumEE / count - meanE * meanE
        let cNN = sumNN / count - meanN * meanN
        let cEN = sumEN / count - meanE * meanN
        let cEV = sumEV / count - meanE * meanV
        let cNV = sumNV / count - meanN * meanV
        // Principal axis of the horizontal acceleration.
        let angle = 0.5 * atan2(2 * cEN, cEE - cNN)
        var axis = SIMD2<Double>(cos(angle), sin(angle))
        let trace = cEE + cNN
        guard trace > 1e-6 else { return }
        let spread = ((cEE - cNN) * (cEE - cNN) + 4 * cEN * cEN).squareRoot()
        let elongation = spread / trace  // 0 (round) ... 1 (a line)
        // Forward acceleration is anti-correlated with the vertical velocity.
        let alongVelocity = axis.x * cEV + axis.y * cNV
        if alongVelocity > 0 { axis = -axis }
        let weight = elongation / max(strideMemory, 1)
        heading += (axis * elongation - heading) * weight
        strides += 1
    }

    /// Blends in a GPS course (degrees clockwise from *magnetic* north: subtract the declination from a true
    /// course first) when the fix moves at `speed` m/s; ignored below 0.5 m/s. `weight` (0...1) is the share the
    /// course takes of the current estimate.
    public mutating func fuseCourse(_ course: Double, speed: Double, weight: Double = 0.2) {
        guard speed >= 0.5, course.isFinite else { return }
        let w = min(max(weight, 0), 1)
        let radians = course * Double.pi / 180
        let target = SIMD2<Double>(sin(radians), cos(radians))
        let length = (heading * heading).sum().squareRoot()
        let current = length > 1e-6 ? heading / length : target
        let blended = current * (1 - w) + target * w
        heading = blended * max(length, 0.5)
        strides = max(strides, 2)
    }

    private mutating func clearStride() {
        count = 0
        sumE = 0
        sumN = 0
        sumV = 0
        sumEE = 0
        sumNN = 0
        sumEN = 0
        sumEV = 0
        sumNV = 0
        stepsInStride = 0
    }

    private static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}
