import CompassKit
public import Foundation
import RealModule

/// A deterministic simulated pedestrian holding a phone: it produces the step counts, IMU samples and GPS fixes a
/// real phone would publish, and the truth they came from.
///
/// There is no clock and no I/O: the caller advances simulated time and publishes the events. Equal
/// configurations and field sources give identical events, however the time is split between calls.
///
/// ```swift
/// var walker = try WalkerSimulator(fieldSource: try WorldMagneticModel.wmm2025())
/// for event in walker.advance(to: 1.0) { publish(event, at: walker.date(at: event.t)) }
/// ```
///
/// **Physics.** Time runs in IMU ticks (`1 / imuRate`); every event is stamped with the tick it falls in, so no event
/// is ever earlier than one already returned. The walker steps at ``WalkerConfiguration/cadence`` with lengths
/// around ``WalkerConfiguration/stepLength`` (each step drawn from the seed), moving along its walking heading, which
/// turns smoothly (at most ``WalkerConfiguration/maximumTurnRate``) towards the route's next target. The phone is held
/// in front, top edge raised by ``WalkerConfiguration/pitch``, its +y axis along the walking heading (so the compass
/// heading of the device equals the true walking heading, except during the figure-8 at the start).
///
/// - Accelerometer: the specific force in the device frame, `Rᵀ·(a − g)` with `g` = 9.80665 m/s² down: gravity
///   (flat face up reads `[0, 0, +9.81]`), step impacts at the step rhythm (vertical, smaller forward and sideways),
///   the centripetal acceleration of turns, and white noise for sensor and hand tremor.
/// - Magnetometer: the geomagnetic field (NED, µT, refreshed along the walk) plus any interference zone, rotated into
///   the device frame, then distorted: `raw = W⁻¹·field + hardIron + noise`. The contract's correction
///   `softIron·(raw − hardIron)` with `softIron =` ``softIron`` (`W`) and `hardIron =` ``hardIron`` recovers the field.
/// - Gyroscope: the body rate that takes the previous sample's attitude to this one (turns, hand sway, figure-8),
///   plus noise; the first sample has no previous one and reads only noise. (The figure-8 is modelled as a rotation
///   of the phone only; the small acceleration of the hand moving it is left out of the accelerometer.)
/// - Location: truth plus a correlated GPS error (see ``WalkerConfiguration/gpsHorizontalError``), with its accuracy,
///   speed and course, at ``WalkerConfiguration/locationRate``.
/// - Steps: the cumulative count, per ``WalkerConfiguration/stepReporting``: by default one event per step, at the
///   sample in which the step completes.
///
/// **Opt-in realism** (all off by default, so the default walk is unchanged bit for bit): other ways of carrying the
/// phone (``WalkerConfiguration/carry``, see ``PhoneCarry``: the attitude and the accelerations change, the walk does
/// not; ``deviceHeading`` and ``deviceAttitude`` give the phone's truth next to ``walkingHeading``), still-phone
/// scripts with no steps (``WalkerConfiguration/activity``), a constant accelerometer and gyroscope bias per axis and
/// accelerometer quantisation, jittered sample times (``WalkerConfiguration/imuJitter``) and dropouts of the IMU
/// stream (``WalkerConfiguration/imuGaps``). Each has its own random stream, so turning one on changes nothing else.
public struct WalkerSimulator: Sendable {
    /// Standard gravity, m/s².
    public static let gravity = 9.806_65
    /// Frequency of the figure-8 sweep (yaw left and right, pitch twice per loop): a loop every 1.4 s.
    private static let figureEightFrequency = 0.7
    /// Frequency of the wrist's twist (roll) during the figure-8, deliberately not the sweep's: the roll phase
    /// drifts by a fifth of a turn per second against the sweep, so successive loops differ.
    private static let figureEightTwistFrequency = 0.9
    /// How long the figure-8 takes to reach full width, and to fade out, in seconds.
    private static let figureEightRamp = 1.0
    /// How strongly the walker steers towards its target: degrees per second of turn per degree off course.
    private static let steeringGain = 1.5

    /// The configuration the walk was built from.
    public let configuration: WalkerConfiguration
    /// The hard-iron offset added to every raw magnetometer sample, device frame, µT: what a perfect calibration
    /// would publish as `hardIron`.
    public let hardIron: [Double]
    /// The soft-iron matrix `W` (rows) with `raw = W⁻¹·field + hardIron`: what a perfect calibration would publish as
    /// `softIron`, since the contract's `corrected = softIron·(raw − hardIron)` then gives the field back.
    public let softIron: [[Double]]

    /// The latest time passed to ``advance(to:)``, seconds since the start.
    public private(set) var time = 0.0
    /// The walker's true position, metres north and east of the start, at the last processed tick.
    public private(set) var position = LocalPoint(north: 0, east: 0)
    /// The true walking heading (degrees clockwise from true north, in [0, 360)) at the last processed tick.
    public private(set) var heading: Double
    /// The true number of steps taken so far.
    public private(set) var steps = 0
    /// The true distance walked so far, metres: the sum of the step lengths (and the part of the current step).
    public private(set) var distanceWalked = 0.0
    /// The geomagnetic field used for the last sample (before interference), NED µT.
    public private(set) var geomagneticField: (north: Double, east: Double, down: Double)
    /// The true walking direction (degrees clockwise from true north, in [0, 360)) at the last processed tick: the
    /// same as ``heading``, named for contrast with ``deviceHeading``. It is the route's whatever the carry.
    public var walkingHeading: Double { heading }
    /// The phone's true heading at the last processed tick, degrees clockwise from true north in [0, 360): the
    /// direction of the device's +y axis projected on the horizontal (the contract's definition), or, when +y is
    /// within 30° of the vertical (a phone held upright, at the ear, in a pocket, hanging in the hand), the direction
    /// the back of the phone (−z) faces. Equal to ``walkingHeading`` in the hand carry outside the figure-8; different
    /// in the pocket, swing, bag, ear and armband carries.
    public private(set) var deviceHeading: Double
    /// The phone's true attitude at the last processed tick: the rows of the device → NED rotation
    /// (`world = R · device`).
    public private(set) var deviceAttitude: [[Double]] = Matrix3.identity.rows
    /// The true time of the last processed IMU tick (emitted or dropped in a gap), seconds since the start.
    public private(set) var lastTickTime = 0.0

    private let fieldSource: any GeomagneticFieldSource
    private let plane: LocalTangentPlane
    private let hardIronVector: Vector3
    private let inverseSoftIron: Matrix3
    private var follower: RouteFollower
    private var gps: GPSErrorModel
    private var gaitRNG: SplitMix64
    private var noiseRNG: SplitMix64

    private var nextTick = 0
    private var nextLocation = 0
    private var nextTruth = 0
    private var nextStepReport = 1
    private var lastReportedSteps = 0
    private var turnRate = 0.0
    private var stepPhase = 0.0
    private var stepDuration: Double
    private var stepLength: Double
    private var fieldTime = 0.0
    private var previousAttitude: Matrix3?
    // Opt-in realism (each with its own random stream, so the default walk's streams are untouched).
    private let accelerometerBiasVector: Vector3
    private let gyroscopeBiasVector: Vector3
    private let bagOrientation: Matrix3
    private var jitterRNG: SplitMix64
    private var gapRNG: SplitMix64
    private var nextTickTime = 0.0
    private var gapEnd = -Double.infinity

    /// A walker at the start of its route, at `t = 0`, before any event.
    ///
    /// - Parameters:
    ///   - configuration: the walk; see ``WalkerConfiguration``.
    ///   - fieldSource: the Earth's field, e.g. `WorldMagneticModel.wmm2025()` or ``ConstantGeomagneticField``.
    /// - Throws: ``WalkerSimulationError/invalidConfiguration`` for a value out of range,
    ///   ``WalkerSimulationError/fieldUnavailable`` when the source cannot give the field at the start. Later failures
    ///   of the source keep the last good field (it changes by well under 1 nT along a walk).
    public init(configuration: WalkerConfiguration = WalkerConfiguration(), fieldSource: any GeomagneticFieldSource) throws {
        try configuration.validate()
        self.configuration = configuration
        self.fieldSource = fieldSource
        plane = LocalTangentPlane(latitude: configuration.startLatitude, longitude: configuration.startLongitude)
        do {
            geomagneticField = try fieldSource.geomagneticField(
                latitude: configuration.startLatitude, longitude: configuration.startLongitude,
                altitude: configuration.startAltitude, date: configuration.startDate
            )
        } catch {
            throw WalkerSimulationError.fieldUnavailable(error)
        }
        let field = geomagneticField
        guard field.north.isFinite, field.east.isFinite, field.down.isFinite else {
            throw WalkerSimulationError.fieldUnavailable("the field source returned a non-finite field \(field)")
        }

        let seed = configuration.seed
        var setupRNG = SplitMix64(seed: seed, stream: 1)
        // Hard iron: the configured vector, or the configured magnitude in a direction uniform on the sphere (drawn
        // either way, so the soft iron of a seed does not depend on whether the hard iron was given).
        let direction = Vector3(setupRNG.nextGaussian(), setupRNG.nextGaussian(), setupRNG.nextGaussian())
        if let fixed = configuration.hardIron {
            hardIronVector = Vector3(fixed[0], fixed[1], fixed[2])
        } else {
            let length = direction.norm
            hardIronVector = length > 0 ? direction * (configuration.hardIronMagnitude / length) : .zero
        }
        hardIron = [hardIronVector.x, hardIronVector.y, hardIronVector.z]
        // Soft iron: W = I + E with E symmetric; diagonal σ = distortion, off-diagonal σ = distortion / 2.
        let d = configuration.softIronDistortion
        let (exx, eyy, ezz) = (d * setupRNG.nextClippedGaussian(), d * setupRNG.nextClippedGaussian(), d * setupRNG.nextClippedGaussian())
        let (exy, exz, eyz) = (
            d / 2 * setupRNG.nextClippedGaussian(), d / 2 * setupRNG.nextClippedGaussian(),
            d / 2 * setupRNG.nextClippedGaussian()
        )
        let w = Matrix3(rows: Vector3(1 + exx, exy, exz), Vector3(exy, 1 + eyy, eyz), Vector3(exz, eyz, 1 + ezz))
        guard let inverse = w.inverse() else {
            throw WalkerSimulationError.invalidConfiguration("the drawn soft-iron matrix is singular; lower the soft-iron distortion")
        }
        softIron = w.rows
        inverseSoftIron = inverse

        follower = RouteFollower(route: configuration.route, rng: SplitMix64(seed: seed, stream: 5))
        heading = follower.initialHeading()
        gps = GPSErrorModel(
            horizontalSigma: configuration.gpsHorizontalError, verticalSigma: configuration.gpsVerticalError,
            correlationTime: configuration.gpsCorrelationTime, rng: SplitMix64(seed: seed, stream: 4))
        gaitRNG = SplitMix64(seed: seed, stream: 2)
        noiseRNG = SplitMix64(seed: seed, stream: 3)
        stepDuration = 1 / configuration.cadence
        stepLength = configuration.stepLength
        deviceHeading = heading
        var biasRNG = SplitMix64(seed: seed, stream: 6)
        let accelBias = Vector3(biasRNG.nextGaussian(), biasRNG.nextGaussian(), biasRNG.nextGaussian())
        let gyroBias = Vector3(biasRNG.nextGaussian(), biasRNG.nextGaussian(), biasRNG.nextGaussian())
        accelerometerBiasVector = configuration.accelerometerBias * accelBias
        gyroscopeBiasVector = configuration.gyroscopeBias * gyroBias
        var bagRNG = SplitMix64(seed: seed, stream: 7)
        bagOrientation = CarryModel.randomRotation(&bagRNG)
        jitterRNG = SplitMix64(seed: seed, stream: 8)
        gapRNG = SplitMix64(seed: seed, stream: 9)
        drawNextStep()
    }

    /// The wall-clock moment of a simulation time: ``WalkerConfiguration/startDate`` plus `t` seconds.
    public func date(at t: Double) -> Date {
        configuration.startDate.addingTimeInterval(t)
    }

    /// Runs the walk up to `t` seconds since the start and returns what happened since the last call, in time order.
    ///
    /// The first call includes the samples at `t = 0` (an IMU sample, a fix and a truth; no step event until the
    /// first step). A tick within 1 ns after `t` counts as reached, so `advance(to: 0.1 * 7.8)` includes the sample
    /// at 0.78 s. A `t` earlier than one already reached, or not finite, returns nothing.
    public mutating func advance(to t: Double) -> [SimulationEvent] {
        guard t.isFinite else { return [] }
        var events: [SimulationEvent] = []
        while tickTime(nextTick) <= t + 1e-9 {
            processTick(nextTick, into: &events)
            nextTick += 1
            if configuration.imuJitter > 0 {
                let u = 2 * jitterRNG.nextUnit() - 1
                nextTickTime += (1 + configuration.imuJitter * u) / configuration.imuRate
            }
        }
        time = max(time, t)
        return events
    }

    // MARK: - One tick

    /// The time of tick `index`: on the regular grid, or, with jitter, the accumulated jittered intervals.
    private func tickTime(_ index: Int) -> Double {
        configuration.imuJitter > 0 ? nextTickTime : Double(index) / configuration.imuRate
    }

    private mutating func processTick(_ index: Int, into events: inout [SimulationEvent]) {
        let rate = configuration.imuRate
        let t = tickTime(index)
        let interval = configuration.imuJitter > 0 ? t - lastTickTime : 1 / rate
        if index > 0, configuration.activity == .walking {
            walk(for: interval, into: &events, at: t)
        }
        lastTickTime = t
        reportSteps(at: t, into: &events)
        refreshField(at: t)
        let sample = imuSample(at: t, interval: interval)
        if !isInGap(at: t, index: index, interval: interval) { events.append(sample) }
        while Double(nextLocation) / configuration.locationRate <= t + 1e-9 {
            if nextLocation > 0 { gps.advance(by: 1 / configuration.locationRate) }
            events.append(locationFix(at: t))
            nextLocation += 1
        }
        while Double(nextTruth) / configuration.truthRate <= t + 1e-9 {
            let coordinates = plane.coordinates(of: position)
            events.append(
                .truth(
                    t: t, latitude: coordinates.latitude, longitude: coordinates.longitude, heading: heading,
                    x: position.north, y: position.east, steps: steps))
            nextTruth += 1
        }
    }

    /// Turns towards the route and moves on by `interval` seconds, splitting the interval at step boundaries so that
    /// each step covers exactly its own length.
    private mutating func walk(for interval: Double, into events: inout [SimulationEvent], at t: Double) {
        if let desired = follower.desiredHeading(from: position, heading: heading) {
            let error = Math.signedAngle(desired - heading)
            let limit = configuration.maximumTurnRate
            turnRate = min(limit, max(-limit, Self.steeringGain * error))
        } else {
            turnRate = 0
        }
        heading = Math.compass(heading + turnRate * interval)
        let direction = Angle.radians(heading)
        var remaining = interval
        while remaining > 0 {
            let speed = stepLength / stepDuration
            let toStepEnd = (1 - stepPhase) * stepDuration
            let moving = min(toStepEnd, remaining)
            position.north += speed * moving * Double.cos(direction)
            position.east += speed * moving * Double.sin(direction)
            distanceWalked += speed * moving
            remaining -= moving
            if toStepEnd <= moving {
                steps += 1
                stepPhase = 0
                drawNextStep()
                if configuration.stepReporting == .everyStep {
                    events.append(.steps(count: steps, t: t))
                    lastReportedSteps = steps
                }
            } else {
                stepPhase += moving / stepDuration
            }
        }
    }

    /// Whether the IMU sample at `t` falls in a dropout (see ``WalkerConfiguration/imuGaps``); may start one.
    private mutating func isInGap(at t: Double, index: Int, interval: Double) -> Bool {
        guard let gaps = configuration.imuGaps, index > 0 else { return false }
        if t < gapEnd { return true }
        guard gapRNG.nextUnit() <= gaps.rate * interval else { return false }
        gapEnd = t + gaps.minimumLength + (gaps.maximumLength - gaps.minimumLength) * gapRNG.nextUnit()
        return true
    }

    private mutating func drawNextStep() {
        stepLength = configuration.stepLength * (1 + configuration.stepLengthVariation * gaitRNG.nextClippedGaussian())
        stepDuration = 1 / (configuration.cadence * (1 + configuration.cadenceVariation * gaitRNG.nextClippedGaussian()))
    }

    private mutating func reportSteps(at t: Double, into events: inout [SimulationEvent]) {
        guard case .interval(let interval) = configuration.stepReporting else { return }
        while Double(nextStepReport) * interval <= t + 1e-9 {
            if steps != lastReportedSteps {
                events.append(.steps(count: steps, t: t))
                lastReportedSteps = steps
            }
            nextStepReport += 1
        }
    }

    private mutating func refreshField(at t: Double) {
        guard t - fieldTime >= configuration.fieldRefreshInterval else { return }
        fieldTime = t
        let coordinates = plane.coordinates(of: position)
        if let field = try? fieldSource.geomagneticField(
            latitude: coordinates.latitude, longitude: coordinates.longitude,
            altitude: configuration.startAltitude, date: date(at: t)),
            field.north.isFinite, field.east.isFinite, field.down.isFinite
        {
            geomagneticField = field
        }
    }

    // MARK: - Sensors

    /// The phone's attitude now: along the walking heading, pitched and rolled as held, with the hand's sway at the
    /// gait rhythm and, at the start, the figure-8.
    private func attitude(at t: Double) -> DeviceOrientation {
        attitude(at: t, pitch: configuration.pitch, roll: configuration.roll, sway: configuration.handSway)
    }

    private func attitude(at t: Double, pitch: Double, roll: Double, sway: Double) -> DeviceOrientation {
        let gait = Double(steps) + stepPhase  // continuous step count: one cycle per step
        var orientation = DeviceOrientation(
            yaw: heading,
            pitch: pitch + 0.75 * sway * Double.sin(2 * .pi * gait),
            roll: roll + sway * Double.sin(.pi * gait)
        )
        let duration = configuration.figureEightDuration
        if configuration.figureEight, t < duration {
            // The wave fades in and out over `figureEightRamp` seconds (sin² edges: zero rate at both ends, so the
            // gyroscope never jumps) and is at full width in between.
            let ramp = min(Self.figureEightRamp, duration / 2)
            let edge = min(t, duration - t)
            let envelopeRoot = edge < ramp ? Double.sin(.pi / 2 * edge / ramp) : 1
            let envelope = envelopeRoot * envelopeRoot
            let sweep = 2 * .pi * Self.figureEightFrequency * t
            let twist = 2 * .pi * Self.figureEightTwistFrequency * t
            // Wide, as people wave a phone when asked to: the calibration needs the field seen from most
            // directions of the orientation sphere (a gentle wave covers an eighth of it and never calibrates).
            // The wrist's twist (roll) keeps its own pace, so no loop retraces the one before: a person's loops
            // differ, and together they cover about 70 % of the sphere in 5 s, where identical loops (a closed
            // Lissajous curve) covered about 43 % and left the soft iron unobservable.
            orientation.yaw += 120 * envelope * Double.sin(sweep)
            orientation.pitch += 60 * envelope * Double.sin(2 * sweep)
            orientation.roll += 150 * envelope * Double.sin(twist + .pi / 4)
        }
        return orientation
    }

    /// Whether the figure-8 wave is under way at `t` (only in the hand and texting carries, while walking).
    public func isWavingFigureEight(at t: Double) -> Bool {
        configuration.figureEight && t > 0 && t < configuration.figureEightDuration
            && configuration.activity == .walking && (configuration.carry == .hand || configuration.carry == .texting)
    }

    /// The hand carry's attitude and specific force (the original model, kept expression for expression so the
    /// default walk's output is unchanged bit for bit).
    private func handKinematics(at t: Double) -> (attitude: Matrix3, specificForce: Vector3) {
        let attitude = attitude(at: t).matrix

        // Accelerometer: specific force a − g in NED, into the device frame.
        let amplitude = configuration.stepImpactAmplitude
        let cycle = 2 * .pi * stepPhase
        let gait = Double(steps) + stepPhase
        let up = amplitude * Double.cos(cycle)
        let forward = 0.3 * amplitude * Double.sin(cycle)
        let speed = stepLength / stepDuration
        let sideways = 0.2 * amplitude * Double.sin(.pi * gait) + speed * Angle.radians(turnRate)  // + centripetal
        let h = Angle.radians(heading)
        let (fn, fe) = (Double.cos(h), Double.sin(h))  // forward unit vector; right is (−fe, fn)
        let specificForce = Vector3(forward * fn - sideways * fe, forward * fe + sideways * fn, -up - Self.gravity)
        return (attitude, specificForce)
    }

    /// The attitude and specific force of the configured carry or script.
    private func kinematics(at t: Double) -> (attitude: Matrix3, specificForce: Vector3) {
        guard configuration.activity == .walking else {
            return CarryModel.script(configuration.activity, at: t, heading: heading)
        }
        let gait = GaitState(
            gait: Double(steps) + stepPhase, stepPhase: stepPhase, stepRate: 1 / stepDuration,
            speed: stepLength / stepDuration, heading: heading, turnRate: turnRate)
        switch configuration.carry {
        case .hand:
            return handKinematics(at: t)
        case .texting:
            // Held a little higher and less steadily than to read, the hand's bob lagging the trunk's.
            let attitude = attitude(at: t, pitch: 40, roll: configuration.roll, sway: 2 * configuration.handSway).matrix
            let body = CarryModel.trunkAcceleration(gait, amplitude: configuration.stepImpactAmplitude, gain: 1.2, lag: 0.3)
            let specificForce = CarryModel.bodyToWorld(heading: heading) * body - Vector3(0, 0, Self.gravity)
            return (attitude, specificForce)
        case .ear, .pocket, .swing, .bag, .armband:
            return CarryModel.walking(
                configuration.carry, gait: gait, amplitude: configuration.stepImpactAmplitude,
                pocketTopDown: configuration.pocketTopDown, bagOrientation: bagOrientation)
        }
    }

    /// The device heading of an attitude: +y projected, or −z when +y is within 30° of the vertical.
    private static func deviceHeading(of attitude: Matrix3) -> Double {
        let y = attitude.column1
        let direction = abs(y.z) < 0.866_025_403_784_438_6 ? y : -attitude.column2
        return Math.compass(Angle.degrees(Double.atan2(y: direction.y, x: direction.x)))
    }

    private mutating func imuSample(at t: Double, interval: Double) -> SimulationEvent {
        let (attitude, specificForce) = kinematics(at: t)
        let toDevice = attitude.transposed
        deviceAttitude = attitude.rows
        deviceHeading = Self.deviceHeading(of: attitude)

        var accel = toDevice * specificForce + noise(configuration.accelerometerNoise)
        if configuration.accelerometerBias > 0 { accel += accelerometerBiasVector }
        let step = configuration.accelerometerQuantization
        if step > 0 {
            func quantized(_ value: Double) -> Double { (value / step).rounded(.toNearestOrEven) * step }
            accel = Vector3(quantized(accel.x), quantized(accel.y), quantized(accel.z))
        }

        // Magnetometer: field (+ interference) into the device frame, then soft iron, hard iron, noise.
        var field = Vector3(geomagneticField.north, geomagneticField.east, geomagneticField.down)
        for zone in configuration.interferenceZones {
            let weight = zone.weight(at: position)
            if weight > 0 { field += weight * Vector3(zone.disturbance[0], zone.disturbance[1], zone.disturbance[2]) }
        }
        let mag = inverseSoftIron * (toDevice * field) + hardIronVector + noise(configuration.magnetometerNoise)

        // Gyroscope: the body-frame rotation from the previous sample's attitude to this one, per second.
        var rate = Vector3.zero
        if let previous = previousAttitude {
            rate = (previous.transposed * attitude).rotationVector / interval
        }
        previousAttitude = attitude
        var gyro = rate + noise(configuration.gyroscopeNoise)
        if configuration.gyroscopeBias > 0 { gyro += gyroscopeBiasVector }

        return .imu(t: t, accel: [accel.x, accel.y, accel.z], mag: [mag.x, mag.y, mag.z], gyro: [gyro.x, gyro.y, gyro.z])
    }

    private mutating func noise(_ sigma: Double) -> Vector3 {
        guard sigma > 0 else { return .zero }
        return sigma * Vector3(noiseRNG.nextGaussian(), noiseRNG.nextGaussian(), noiseRNG.nextGaussian())
    }

    private mutating func locationFix(at t: Double) -> SimulationEvent {
        let measured = LocalPoint(north: position.north + gps.north, east: position.east + gps.east)
        let coordinates = plane.coordinates(of: measured)
        let trueSpeed = configuration.activity == .walking ? stepLength / stepDuration : 0
        let speed = max(0, trueSpeed + gps.speedNoise())
        let course = Math.compass(heading + gps.courseNoise())
        return .location(
            t: t, latitude: coordinates.latitude, longitude: coordinates.longitude,
            altitude: configuration.startAltitude + gps.up, horizontalAccuracy: gps.horizontalAccuracy,
            verticalAccuracy: gps.verticalAccuracy, speed: speed, course: course)
    }
}
