import CompassKit
import RealModule

/// The kinematics of the carries other than ``PhoneCarry/hand`` and of the still-phone scripts: for one instant, the
/// device's attitude (device → NED) and the specific force it feels (NED, m/s², acceleration minus gravity).
///
/// The walker's body frame is forward, right, down: NED turned about the vertical by the walking heading. Each carry
/// gives the device → body rotation over the gait cycle and the acceleration of the phone in the body frame (trunk
/// bounce plus the carry's own lever motion); the result is turned into NED by the walking heading. The gyroscope is
/// derived by the simulator from successive attitudes, the magnetometer from the attitude, so both are consistent
/// with this model by construction.
struct GaitState {
    /// Continuous step count `steps + stepPhase`: one cycle per step.
    var gait: Double
    /// Fraction of the current step, 0..<1.
    var stepPhase: Double
    /// Steps per second of the current step (the gait's rate of change).
    var stepRate: Double
    /// Walking speed, m/s.
    var speed: Double
    /// Walking heading, degrees clockwise from north.
    var heading: Double
    /// Turn rate of the walking heading, degrees per second.
    var turnRate: Double
}

enum CarryModel {
    // MARK: Rotations (active, right-handed)

    /// About the x axis: y towards z.
    static func rotationX(_ angle: Double) -> Matrix3 {
        let (s, c) = (Double.sin(angle), Double.cos(angle))
        return Matrix3(rows: Vector3(1, 0, 0), Vector3(0, c, -s), Vector3(0, s, c))
    }

    /// About the y axis: z towards x.
    static func rotationY(_ angle: Double) -> Matrix3 {
        let (s, c) = (Double.sin(angle), Double.cos(angle))
        return Matrix3(rows: Vector3(c, 0, s), Vector3(0, 1, 0), Vector3(-s, 0, c))
    }

    /// Body (forward, right, down) → NED for a walking heading in degrees.
    static func bodyToWorld(heading: Double) -> Matrix3 {
        let h = Angle.radians(heading)
        let (s, c) = (Double.sin(h), Double.cos(h))
        return Matrix3(rows: Vector3(c, -s, 0), Vector3(s, c, 0), Vector3(0, 0, 1))
    }

    /// A rotation uniform over SO(3) from the seed (a normalised Gaussian quaternion): the bag's orientation.
    static func randomRotation(_ rng: inout SplitMix64) -> Matrix3 {
        var q = SIMD4(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian())
        let length = (q * q).sum().squareRoot()
        q = length > 0 ? q / length : SIMD4(1, 0, 0, 0)
        let (w, x, y, z) = (q.x, q.y, q.z, q.w)
        return Matrix3(
            rows: Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
        )
    }

    // MARK: Fixed device → body mountings (columns: the device's x, y, z in the body frame)

    /// At the right ear: x backwards, y up, z (screen) towards the head (left).
    private static let ear = Matrix3(rows: Vector3(-1, 0, 0), Vector3(0, 0, -1), Vector3(0, -1, 0))
    /// Cosine and sine of the pocket's 30° outward slant.
    private static let (pocketC, pocketS) = (0.866_025_403_784_438_6, 0.5)
    /// Right front pocket, thigh vertical, top down: y down, z (screen) towards the thigh, i.e. back and inwards.
    private static let pocketTopDown = Matrix3(rows: Vector3(pocketS, 0, -pocketC), Vector3(-pocketC, 0, -pocketS), Vector3(0, 1, 0))
    /// The same pocket, top up.
    private static let pocketTopUp = Matrix3(rows: Vector3(-pocketS, 0, -pocketC), Vector3(pocketC, 0, -pocketS), Vector3(0, -1, 0))
    /// Hanging in the right hand, arm vertical: x forward, y down along the fingers, z (screen) towards the thigh.
    private static let swingHand = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 0, -1), Vector3(0, 1, 0))
    /// Armband on the right upper arm, arm vertical: x forward, y up, z (screen) outwards (right).
    private static let armbandMount = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 0, 1), Vector3(0, -1, 0))

    // MARK: Motions

    /// A pendulum angle `center + amplitude · sin(phase)` with the phase advancing at `phaseRate` rad/s: the angle,
    /// its rate and its angular acceleration (radians).
    private static func pendulum(center: Double, amplitude: Double, phase: Double, phaseRate: Double)
        -> (angle: Double, rate: Double, acceleration: Double)
    {
        (
            center + amplitude * Double.sin(phase), amplitude * phaseRate * Double.cos(phase),
            -amplitude * phaseRate * phaseRate * Double.sin(phase)
        )
    }

    /// Acceleration (body frame) of a point `radius` below a pivot, the lever turned by `angle` about the body's y
    /// (lateral) axis: tangential `ψ̈ · r · t` plus centripetal `−ψ̇² · r · d`.
    private static func leverAboutY(radius: Double, _ p: (angle: Double, rate: Double, acceleration: Double)) -> Vector3 {
        let (s, c) = (Double.sin(p.angle), Double.cos(p.angle))
        return radius * (p.acceleration * Vector3(c, 0, -s) - p.rate * p.rate * Vector3(s, 0, c))
    }

    /// The same for a lever turned about the body's x (forward) axis.
    private static func leverAboutX(radius: Double, _ p: (angle: Double, rate: Double, acceleration: Double)) -> Vector3 {
        let (s, c) = (Double.sin(p.angle), Double.cos(p.angle))
        return radius * (p.acceleration * Vector3(0, -c, -s) - p.rate * p.rate * Vector3(0, -s, c))
    }

    /// The trunk's acceleration in the body frame, as the hand carry has it: a vertical bounce at the step rhythm,
    /// smaller forward and sideways (the sideways at the stride rhythm) components, scaled by `gain` and delayed by
    /// `lag` radians of the step cycle, plus the (undelayed) centripetal acceleration of turns.
    static func trunkAcceleration(_ g: GaitState, amplitude: Double, gain: Double = 1, lag: Double = 0) -> Vector3 {
        let a = gain * amplitude
        let cycle = 2 * .pi * g.stepPhase - lag
        let up = a * Double.cos(cycle)
        let forward = 0.3 * a * Double.sin(cycle)
        let sideways = 0.2 * a * Double.sin(.pi * g.gait - lag / 2) + g.speed * Angle.radians(g.turnRate)
        return Vector3(forward, sideways, -up)
    }

    /// Attitude (device → NED) and specific force (NED) of a walking carry other than hand and texting.
    static func walking(
        _ carry: PhoneCarry, gait g: GaitState, amplitude: Double, pocketTopDown topDown: Bool,
        bagOrientation: Matrix3
    ) -> (attitude: Matrix3, specificForce: Vector3) {
        let stride = Double.pi * g.gait  // one cycle per stride (two steps)
        let strideRate = Double.pi * g.stepRate  // rad/s
        let stepCycle = 2 * Double.pi * g.gait
        var mount: Matrix3
        var acceleration: Vector3
        switch carry {
        case .hand, .texting:
            preconditionFailure("the hand and texting carries are modelled by the simulator itself")
        case .ear:
            mount = rotationY(Angle.radians(20 + 2 * Double.sin(stepCycle))) * ear
            acceleration = trunkAcceleration(g, amplitude: amplitude, gain: 0.8)
        case .pocket:
            let thigh = pendulum(center: Angle.radians(5), amplitude: Angle.radians(35), phase: stride, phaseRate: strideRate)
            mount = rotationY(thigh.angle) * (topDown ? pocketTopDown : pocketTopUp)
            let impact = Vector3(0, 0, -0.5 * amplitude * Double.cos(2 * stepCycle))
            acceleration = trunkAcceleration(g, amplitude: amplitude) + impact + leverAboutY(radius: 0.25, thigh)
        case .swing:
            let arm = pendulum(center: 0, amplitude: Angle.radians(50), phase: stride + .pi, phaseRate: strideRate)
            mount = rotationY(arm.angle) * swingHand
            acceleration = trunkAcceleration(g, amplitude: amplitude) + leverAboutY(radius: 0.6, arm)
        case .bag:
            let sway = pendulum(center: 0, amplitude: Angle.radians(5), phase: stride - 0.8, phaseRate: strideRate)
            let pitch = Angle.radians(3) * Double.sin(stepCycle - 0.8)
            mount = rotationX(sway.angle) * rotationY(pitch) * bagOrientation
            acceleration = trunkAcceleration(g, amplitude: amplitude, gain: 0.6, lag: 0.8) + leverAboutX(radius: 0.35, sway)
        case .armband:
            let arm = pendulum(center: 0, amplitude: Angle.radians(15), phase: stride + .pi, phaseRate: strideRate)
            mount = rotationY(arm.angle) * armbandMount
            acceleration = trunkAcceleration(g, amplitude: amplitude) + leverAboutY(radius: 0.15, arm)
        }
        let toWorld = bodyToWorld(heading: g.heading)
        return (toWorld * mount, toWorld * acceleration - Vector3(0, 0, WalkerSimulator.gravity))
    }

    // MARK: Still-phone scripts

    /// The minimum-jerk profile 10u³ − 15u⁴ + 6u⁵, clamped to 0…1.
    private static func minimumJerk(_ u: Double) -> Double {
        let v = min(1, max(0, u))
        return v * v * v * (10 - 15 * v + 6 * v * v)
    }

    /// The scripted pose at `t`: device → body rotation and the phone's position in the body frame (metres).
    private static func scriptPose(_ activity: WalkerActivity, at t: Double) -> (mount: Matrix3, position: Vector3) {
        let flat = Matrix3(rows: Vector3(0, 1, 0), Vector3(1, 0, 0), Vector3(0, 0, -1))  // device → body, face up, top forward
        func held(pitch: Double, roll: Double) -> Matrix3 {
            flat * rotationX(Angle.radians(pitch)) * rotationY(Angle.radians(roll))
        }
        switch activity {
        case .walking, .onTable:
            return (flat, .zero)
        case .pickUpAndPutDown:
            let tau = t.truncatingRemainder(dividingBy: 8)
            var lifted = 0.0
            var tremor = 0.0
            if tau >= 2 && tau < 3 {
                lifted = minimumJerk(tau - 2)
            } else if tau >= 3 && tau < 6 {
                lifted = 1
                tremor = 0.7 * Double.sin(.pi * (tau - 3) / 3) * Double.sin(2 * .pi * 1.7 * (tau - 3))
            } else if tau >= 6 && tau < 7 {
                lifted = 1 - minimumJerk(tau - 6)
            }
            return (held(pitch: 35 * lifted + tremor, roll: 3 * lifted), Vector3(0, 0, -0.3 * lifted))
        case .shaken(let frequency, let duration):
            let tau = t - 1
            guard tau > 0 && tau < duration else { return (held(pitch: 35, roll: 3), .zero) }
            let ramp = min(0.3, duration / 2)
            let edge = min(tau, duration - tau)
            let root = edge < ramp ? Double.sin(.pi / 2 * edge / ramp) : 1
            let envelope = root * root
            let omega = 2 * .pi * frequency
            let reach = 15 / (omega * omega)  // peak acceleration about 15 m/s²
            let sideways = reach * envelope * Double.sin(omega * tau)
            let vertical = 0.5 * reach * envelope * Double.sin(omega * tau + 0.7)
            let twist = 20 * envelope * Double.sin(omega * tau + 0.3)
            return (held(pitch: 35, roll: 3 + twist), Vector3(0, sideways, vertical))
        }
    }

    /// Attitude (device → NED) and specific force (NED) of a still-phone script, the person facing `heading`. The
    /// phone's acceleration is the second difference of its scripted position over ±1 ms (smooth motions, so the
    /// error is far below any sensor noise).
    static func script(_ activity: WalkerActivity, at t: Double, heading: Double) -> (attitude: Matrix3, specificForce: Vector3) {
        let toWorld = bodyToWorld(heading: heading)
        let pose = scriptPose(activity, at: t)
        let h = 1e-3
        let before = scriptPose(activity, at: t - h).position
        let after = scriptPose(activity, at: t + h).position
        let acceleration = (after - 2 * pose.position + before) / (h * h)
        return (toWorld * pose.mount, toWorld * acceleration - Vector3(0, 0, WalkerSimulator.gravity))
    }
}
