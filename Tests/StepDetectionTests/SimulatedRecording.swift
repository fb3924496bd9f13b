import Foundation
import StepDetection

/// A deterministic random source for the simulated recordings.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [low, high).
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }

    /// Standard normal.
    mutating func gaussian() -> Double {
        let u1 = max(uniform(0, 1), 1e-12)
        let u2 = uniform(0, 1)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

/// A 3×3 rotation, stored by rows.
struct Rotation {
    var r0: SIMD3<Double>, r1: SIMD3<Double>, r2: SIMD3<Double>

    static let identity = Rotation(r0: [1, 0, 0], r1: [0, 1, 0], r2: [0, 0, 1])

    static func x(_ degrees: Double) -> Rotation {
        let (s, c) = (sin(degrees * .pi / 180), cos(degrees * .pi / 180))
        return Rotation(r0: [1, 0, 0], r1: [0, c, -s], r2: [0, s, c])
    }

    static func y(_ degrees: Double) -> Rotation {
        let (s, c) = (sin(degrees * .pi / 180), cos(degrees * .pi / 180))
        return Rotation(r0: [c, 0, s], r1: [0, 1, 0], r2: [-s, 0, c])
    }

    static func z(_ degrees: Double) -> Rotation {
        let (s, c) = (sin(degrees * .pi / 180), cos(degrees * .pi / 180))
        return Rotation(r0: [c, -s, 0], r1: [s, c, 0], r2: [0, 0, 1])
    }

    func apply(_ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((r0 * v).sum(), (r1 * v).sum(), (r2 * v).sum())
    }

    var transposed: Rotation {
        Rotation(r0: [r0.x, r1.x, r2.x], r1: [r0.y, r1.y, r2.y], r2: [r0.z, r1.z, r2.z])
    }

    static func * (a: Rotation, b: Rotation) -> Rotation {
        let bt = b.transposed
        return Rotation(
            r0: [(a.r0 * bt.r0).sum(), (a.r0 * bt.r1).sum(), (a.r0 * bt.r2).sum()],
            r1: [(a.r1 * bt.r0).sum(), (a.r1 * bt.r1).sum(), (a.r1 * bt.r2).sum()],
            r2: [(a.r2 * bt.r0).sum(), (a.r2 * bt.r1).sum(), (a.r2 * bt.r2).sum()]
        )
    }
}

/// How the simulated phone is carried.
enum Carry: String, CaseIterable, Sendable {
    case hand, texting, ear, pocket, swinging, bag, armband
}

/// One sample of a simulated recording (device frame; m/s², µT, rad/s).
struct SimulatedSample {
    var time: Double
    var acceleration: SIMD3<Double>
    var magneticField: SIMD3<Double>
    var rotationRate: SIMD3<Double>
}

/// A recorded-like phone signal: a person standing, walking, standing, with the phone carried one way.
///
/// Body frame: x right, y forward, z up; world frame: x east, y north, z up. Walking follows the inverted-pendulum
/// gait: the vertical acceleration peaks at heel strike, the forward acceleration leads it by a quarter step, the
/// lateral sway runs at the stride rate; each step has its own duration and amplitude, heel strikes add a short
/// impact, and the sensor adds white noise and a bias.
struct SimulatedRecording {
    var samples: [SimulatedSample] = []
    /// Heel-strike times of the steps taken.
    var stepTimes: [Double] = []
    /// Stretches without samples.
    var gaps: [ClosedRange<Double>] = []

    /// Steps whose heel strike is outside every gap (the ones a detector can see).
    var visibleSteps: Int {
        stepTimes.filter { t in !gaps.contains { $0.contains(t) } }.count
    }

    static let fieldWorld = SIMD3<Double>(0, 22, -42)
    static let gravity = 9.81

    /// A walk: `standing` s still, `walking` s of walking at `cadence` steps/s towards `heading` (degrees from
    /// magnetic north), `standing` s still again.
    static func walk(
        carry: Carry,
        rate: Double,
        cadence: Double,
        heading: Double = 40,
        walking: Double = 60,
        standing: Double = 3,
        jitter: Double = 0.15,
        gapCount: Int = 2,
        seed: UInt64
    ) -> SimulatedRecording {
        var random = SeededRandom(seed: seed)
        // Step times with step-to-step variability.
        var heelStrikes: [Double] = []
        var amplitudes: [Double] = []
        var t = standing
        while t < standing + walking {
            heelStrikes.append(t)
            amplitudes.append(random.uniform(0.85, 1.15))
            t += (1 / cadence) * random.uniform(0.94, 1.06)
        }
        let end = standing * 2 + walking
        let intensity = pow(cadence / 1.8, 1.5)
        let bodyYaw = Rotation.z(-heading)
        let bias = SIMD3(random.uniform(-0.15, 0.15), random.uniform(-0.15, 0.15), random.uniform(-0.15, 0.15))
        let pocketYaw = random.uniform(-25, 25)

        // Body acceleration (body frame) at time t, and the stride phase (radians) for limb motion.
        func body(_ t: Double) -> (acceleration: SIMD3<Double>, stridePhase: Double, walkingWeight: Double) {
            guard let first = heelStrikes.first, t >= first, t < heelStrikes.last! + 0.5 else {
                return (.zero, 0, 0)
            }
            var index = 0
            var low = 0
            var high = heelStrikes.count - 1
            while low <= high {
                let mid = (low + high) / 2
                if heelStrikes[mid] <= t {
                    index = mid
                    low = mid + 1
                } else {
                    high = mid - 1
                }
            }
            let start = heelStrikes[index]
            let duration = index + 1 < heelStrikes.count ? heelStrikes[index + 1] - start : 1 / cadence
            let phase = 2 * Double.pi * min((t - start) / duration, 1)
            let ramp = min(1, Double(index + 1) / 2.5) * (index + 1 < heelStrikes.count ? 1 : 0.4)
            let a = amplitudes[index] * intensity * ramp
            let vertical = a * (2.6 * cos(phase) + 0.7 * cos(2 * phase + 0.6) + 0.25 * cos(3 * phase + 1.1))
            let forward = a * (-1.8 * sin(phase) + 0.4 * sin(2 * phase + 0.3))
            let side: Double = index % 2 == 0 ? 1 : -1
            let lateral = a * 0.8 * side * sin(phase / 2)
            let sinceStrike = t - start
            let impact = a * 3.0 * exp(-sinceStrike * sinceStrike / (2 * 0.012 * 0.012)) * (sinceStrike >= 0 ? 1 : 0)
            let stridePhase = Double.pi * (Double(index) + (t - start) / duration)
            return (SIMD3(lateral, forward, vertical + impact), stridePhase, ramp)
        }

        // Device-to-body rotation and the extra limb acceleration (body frame) for the carry.
        func carryPose(_ t: Double, stridePhase: Double, weight: Double) -> (Rotation, SIMD3<Double>) {
            let wobble = 3 * sin(2 * Double.pi * 0.3 * t)
            let omega = Double.pi * cadence  // stride angular rate
            func limb(radius: Double, amplitude: Double) -> (angle: Double, acceleration: SIMD3<Double>) {
                let theta = amplitude * weight * sin(stridePhase) * .pi / 180
                let rate = amplitude * weight * omega * cos(stridePhase) * .pi / 180
                let accel = -amplitude * weight * omega * omega * sin(stridePhase) * .pi / 180
                // Position r·(0, sin θ, −cos θ) below the pivot.
                let forward = radius * (cos(theta) * accel - sin(theta) * rate * rate)
                let up = radius * (sin(theta) * accel + cos(theta) * rate * rate)
                return (theta * 180 / .pi, SIMD3(0, forward, up))
            }
            switch carry {
            case .hand:
                return (Rotation.x(25 + wobble) * Rotation.y(wobble), .zero)
            case .texting:
                return (Rotation.x(35 + wobble * 0.5), .zero)
            case .ear:
                return (Rotation.z(90) * Rotation.x(80 + wobble), .zero)
            case .pocket:
                let (angle, extra) = limb(radius: 0.3, amplitude: 35)
                return (Rotation.z(pocketYaw) * Rotation.x(angle) * Rotation.x(-90), extra * 0.6)
            case .swinging:
                let (angle, extra) = limb(radius: 0.65, amplitude: 50)
                return (Rotation.x(angle) * Rotation.x(-90) * Rotation.z(90), extra)
            case .bag:
                let sway = 8 * weight * sin(stridePhase)
                return (Rotation.x(-70 + sway) * Rotation.z(30), .zero)
            case .armband:
                let (angle, extra) = limb(radius: 0.25, amplitude: 15)
                return (Rotation.x(angle) * Rotation.x(90), extra)
            }
        }

        var recording = SimulatedRecording()
        recording.stepTimes = heelStrikes
        // Gaps in the middle of the walk.
        for index in 0..<gapCount {
            let start = standing + walking * Double(index + 1) / Double(gapCount + 1) + random.uniform(-2, 2)
            recording.gaps.append(start...(start + random.uniform(0.3, 1.0)))
        }
        let bodyScale: Double = carry == .bag ? 0.55 : (carry == .pocket ? 1.2 : 1)
        var time = 0.0
        var previousPose: Rotation?
        var previousTime = 0.0
        // The bag damps the body motion: a one-pole low-pass at 4 Hz.
        var damped = SIMD3<Double>.zero
        while time < end {
            if let gap = recording.gaps.first(where: { $0.contains(time) }) {
                time = gap.upperBound + 0.001
                previousPose = nil
                continue
            }
            let (bodyAcceleration, stridePhase, weight) = body(time)
            var motion = bodyAcceleration * bodyScale
            if carry == .bag {
                let alpha = (1 / rate) / (1 / (2 * Double.pi * 4) + 1 / rate)
                damped += (motion - damped) * alpha
                motion = damped
            }
            let (pose, limbAcceleration) = carryPose(time, stridePhase: stridePhase, weight: weight)
            let deviceToWorld = bodyYaw * pose
            let worldToDevice = deviceToWorld.transposed
            let specificForce = bodyYaw.apply(motion + limbAcceleration) + SIMD3(0, 0, gravity)
            var accelerometer = worldToDevice.apply(specificForce) + bias
            accelerometer += SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * 0.06
            var field = worldToDevice.apply(fieldWorld)
            field += SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * 0.4
            var rotationRate = SIMD3<Double>.zero
            if let previousPose, time > previousTime {
                // R_prevᵀ · R_now ≈ I + [ω]× dt (device frame).
                let delta = (bodyYaw * previousPose).transposed * deviceToWorld
                rotationRate =
                    SIMD3(delta.r2.y - delta.r1.z, delta.r0.z - delta.r2.x, delta.r1.x - delta.r0.y)
                    / (2 * (time - previousTime))
            }
            previousPose = pose
            previousTime = time
            recording.samples.append(
                SimulatedSample(time: time, acceleration: accelerometer, magneticField: field, rotationRate: rotationRate)
            )
            time += (1 / rate) * (1 + random.uniform(-jitter, jitter))
        }
        return recording
    }

    /// Feeds `samples` to a fresh detector and returns it (with every released step).
    static func detect(
        _ samples: [SimulatedSample],
        configuration: StepDetectorConfiguration = .defaults
    ) -> (detector: StepDetector, steps: [DetectedStep]) {
        var detector = StepDetector(configuration: configuration)
        var steps: [DetectedStep] = []
        for sample in samples {
            steps.append(contentsOf: detector.add(time: sample.time, acceleration: sample.acceleration))
        }
        // The samples end: the step held for confirmation is judged, as at the end of a recording.
        steps.append(contentsOf: detector.finish())
        return (detector, steps)
    }
}
