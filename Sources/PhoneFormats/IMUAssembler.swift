/// Builds contract IMU samples for one device from its separate sensor streams, which must be fed
/// in time order (put out-of-order batches through a ``ReorderBuffer`` first).
///
/// - One IMU sample per acceleration sample. With a `totalacceleration`-style stream
///   (``PhoneSample/Reading/acceleration(_:)``) the value is used as is; once such a stream has been
///   seen, user-acceleration samples are ignored. Otherwise total acceleration is user acceleration
///   plus the gravity sample nearest in time (held until the next gravity sample shows which is
///   nearer, or until the stream has moved ``gravityWindow`` past it); with no gravity sample within
///   ``gravityWindow`` the sample is dropped and counted.
/// - `mag` and `gyro` are the latest readings at or before the acceleration sample. Calibrated streams
///   win: once a calibrated magnetometer (gyroscope) reading has been seen, uncalibrated ones are
///   ignored.
/// - Acceleration samples before the first magnetometer reading (a phone without one, an export
///   without `Magnetometer.csv`, or the first moments of a push) cannot be contract IMU samples,
///   whose `mag` is required: they come out as ``PhoneOutput/acceleration(_:)`` (counted in
///   ``Statistics/withoutMagnetometer``), from which steps can still be detected. They are not held
///   for a later reading, which would give them a magnetometer reading from their future; a whole
///   recording may pass its first reading as `initialMagnetometer` instead.
/// - Locations and step counts pass through, kept in time order with the IMU samples.
public struct IMUAssembler: Sendable {
    /// Counters of what was dropped or ignored.
    public struct Statistics: Sendable, Hashable {
        /// Acceleration samples before any magnetometer reading (given out as ``PhoneOutput/acceleration(_:)``).
        public var withoutMagnetometer = 0
        /// User-acceleration samples with no gravity sample within the window.
        public var droppedWithoutGravity = 0
        /// User-acceleration samples ignored because a total-acceleration stream is present.
        public var ignoredUserAcceleration = 0
        /// Samples that went back in time (input not in order).
        public var droppedOutOfOrder = 0
    }

    /// How far a gravity sample may be from a user-acceleration sample to be combined with it, seconds.
    public let gravityWindow: Double
    /// What was dropped or ignored so far.
    public private(set) var statistics = Statistics()

    private enum Pending: Sendable {
        case waiting(time: Double, user: Vector3, mag: Vector3?, gyro: Vector3?)
        case ready(PhoneOutput)
    }

    private var pending: [Pending] = []
    private var lastTime: Double?
    private var usesTotalAcceleration = false
    private var magnetometer: (value: Vector3, calibrated: Bool)?
    private var gyroscope: (value: Vector3, calibrated: Bool)?
    private var lastGravity: (time: Double, value: Vector3)?

    /// Creates an assembler.
    /// - Parameters:
    ///   - gravityWindow: How far (seconds) a gravity sample may be from a user-acceleration sample.
    ///   - initialMagnetometer: The reading to use before the first one arrives: a recording's first
    ///     magnetometer reading, for the acceleration samples that start a moment before it.
    public init(gravityWindow: Double = 0.5, initialMagnetometer: Vector3? = nil) {
        self.gravityWindow = gravityWindow
        magnetometer = initialMagnetometer.map { ($0, false) }
    }

    /// Consumes time-ordered samples and returns the outputs that are complete, in time order.
    public mutating func add(_ samples: [PhoneSample]) -> [PhoneOutput] {
        var outputs: [PhoneOutput] = []
        outputs.reserveCapacity(samples.count)
        for sample in samples {
            consume(sample)
            // Draining as we go keeps `pending` down to what waits for gravity (linear time).
            drain(into: &outputs)
        }
        return outputs
    }

    /// Resolves what is still held using the gravity already seen, and returns it.
    public mutating func flush() -> [PhoneOutput] {
        resolveWaiting(upTo: .infinity, nextGravity: nil)
        var outputs: [PhoneOutput] = []
        drain(into: &outputs)
        return outputs
    }

    private mutating func consume(_ sample: PhoneSample) {
        let time = sample.time
        if let lastTime, time < lastTime {
            statistics.droppedOutOfOrder += 1
            return
        }
        lastTime = time
        // Anything waiting for gravity longer than the window is settled now.
        resolveWaiting(upTo: time - gravityWindow, nextGravity: nil)
        switch sample.reading {
        case .acceleration(let total):
            if !usesTotalAcceleration {
                usesTotalAcceleration = true
                let before = pending.count
                pending.removeAll { if case .waiting = $0 { true } else { false } }
                statistics.ignoredUserAcceleration += before - pending.count
            }
            if magnetometer == nil { statistics.withoutMagnetometer += 1 }
            pending.append(.ready(Self.output(time: time, accel: total, mag: magnetometer?.value, gyro: gyroscope?.value)))
        case .userAcceleration(let user):
            guard !usesTotalAcceleration else {
                statistics.ignoredUserAcceleration += 1
                return
            }
            if magnetometer == nil { statistics.withoutMagnetometer += 1 }
            if let lastGravity, lastGravity.time == time {
                pending.append(.ready(Self.output(time: time, accel: user + lastGravity.value, mag: magnetometer?.value, gyro: gyroscope?.value)))
            } else {
                pending.append(.waiting(time: time, user: user, mag: magnetometer?.value, gyro: gyroscope?.value))
            }
        case .gravity(let gravity):
            resolveWaiting(upTo: time, nextGravity: (time, gravity))
            lastGravity = (time, gravity)
        case .magneticField(let field, let calibrated):
            if calibrated || magnetometer?.calibrated != true { magnetometer = (field, calibrated) }
        case .rotationRate(let rate, let calibrated):
            if calibrated || gyroscope?.calibrated != true { gyroscope = (rate, calibrated) }
        case .location(let location):
            pending.append(.ready(.location(location)))
        case .steps(let steps):
            pending.append(.ready(.steps(StepSample(steps: steps, timestamp: time))))
        }
    }

    /// Settles every waiting sample at or before `limit` with the nearer of the last gravity sample
    /// and `nextGravity`, dropping those with neither within the window.
    private mutating func resolveWaiting(upTo limit: Double, nextGravity: (time: Double, value: Vector3)?) {
        for index in pending.indices {
            guard case .waiting(let time, let user, let mag, let gyro) = pending[index], time <= limit else { continue }
            var best: (distance: Double, value: Vector3)?
            if let lastGravity {
                best = (abs(time - lastGravity.time), lastGravity.value)
            }
            if let nextGravity, abs(nextGravity.time - time) < (best?.distance ?? .infinity) {
                best = (abs(nextGravity.time - time), nextGravity.value)
            }
            if let best, best.distance <= gravityWindow {
                pending[index] = .ready(Self.output(time: time, accel: user + best.value, mag: mag, gyro: gyro))
            } else {
                pending[index] = .ready(Self.output(time: .nan, accel: user, mag: mag, gyro: gyro))
                statistics.droppedWithoutGravity += 1
            }
        }
    }

    /// An IMU sample, or an acceleration-only one without a magnetometer reading.
    private static func output(time: Double, accel: Vector3, mag: Vector3?, gyro: Vector3?) -> PhoneOutput {
        guard let mag else { return .acceleration(AccelerationSample(timestamp: time, accel: accel)) }
        return .imu(IMUSample(timestamp: time, accel: accel, mag: mag, gyro: gyro))
    }

    private mutating func drain(into outputs: inout [PhoneOutput]) {
        guard case .ready? = pending.first else { return }
        var consumed = 0
        for entry in pending {
            guard case .ready(let output) = entry else { break }
            consumed += 1
            if output.timestamp.isNaN { continue }
            outputs.append(output)
        }
        pending.removeFirst(consumed)
    }
}
