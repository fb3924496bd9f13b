import CompassKit
import Foundation
import GeoMagnetism
import Metrics
import ServiceRuntime
import StepDetection

/// One device's compass state: filters, calibration, settings, and what was last published.
///
/// Owned by ``CompassEngine`` alone (never shared, never leaves the actor), so a device's messages
/// are applied one at a time in arrival order. A class, not a value: the timer visits every device
/// 40 times a second, and with a value in the dictionary each visit copied the whole state (about
/// a kilobyte) out and back, a few percent of the service's time at 1,000 devices. Each method appends the messages to publish to an ``Outbound`` list instead of
/// publishing, which keeps it free of I/O and testable without a bus.
final class DeviceCompass {
    /// A message to publish for this device.
    enum Outbound: Sendable, Hashable {
        case heading(HeadingMessage)
        case calibration(CalibrationMessage)
        case bearingLock(BearingLockMessage)
    }

    /// When something happens: the date for timestamps and the service's monotonic clock in
    /// seconds for staleness.
    struct Moment: Sendable {
        var date: Date
        var wall: Double
    }

    let configuration: CompassConfiguration
    var pipeline: HeadingPipeline
    var fitter = CalibrationFitter()
    /// The fitter's ``CompassKit/CalibrationFitter/calibrationRevision`` when `sample` last compared its calibration
    /// with the pipeline's.
    var pipelineCalibrationRevision = -1
    var limiter: HeadingRateLimiter
    var lock = BearingLock()
    var north = NorthReference.true
    var motion: SensorPermission?
    var environment: MagneticEnvironment?
    var expectation: MagneticEnvironment.Expectation?
    var latest: HeadingPipeline.Output?
    var latestDate: Date?
    var lastSampleTime: Double?
    var lastSampleWall: Double?
    var isStale = false
    var publishedHeading: HeadingMessage?
    /// The fields of ``publishedHeading`` that decide whether the next heading is worth publishing, in the compass's
    /// types (compared on every sample).
    var publishedSummary: HeadingSummary?
    /// Set when the reference came from a retained heading that had a walking direction: until this run's estimate
    /// forms (from the next fixes), its absence is not a change worth publishing.
    var awaitsRestoredWalkingDirection = false
    var publishedCalibration: CalibrationMessage?
    var publishedLock: BearingLockMessage?
    /// Steps from the raw accelerometer, which close the walking-direction estimator's strides.
    var stepDetector = StepDetector()
    /// The direction the owner walks in (magnetic), from the same samples.
    var walking = WalkingDirectionEstimator()
    /// Counts the heading changes the rate limit holds back (once per window).
    let held: Counter?

    init(configuration: CompassConfiguration, held: Counter? = nil) {
        self.configuration = configuration
        self.held = held
        var tuning = HeadingPipeline.Configuration()
        tuning.smoothing = configuration.smoothing
        pipeline = HeadingPipeline(configuration: tuning)
        limiter = HeadingRateLimiter(interval: configuration.publishInterval)
    }

    // MARK: Samples

    /// Applies one IMU sample.
    /// - Throws: ``InputError`` for a sample older than the previous one or one with no usable
    ///   geometry (the field parallel to gravity); the state is then unchanged.
    func sample(_ input: IMUInput, date: Date, at moment: Moment, into out: inout [Outbound]) throws(InputError) {
        let time = date.timeIntervalSince1970
        if let last = lastSampleTime, time < last {
            throw InputError("the sample's timestamp is earlier than the device's previous sample")
        }
        if environment != nil { refreshExpectation(at: date) }
        let kept = fitter.add(input.mag, at: time, gravity: input.accel)
        // Calibrations are compared only when the fitter set one since the last look (a comparison of two optional
        // calibrations on every sample copied both).
        var calibrationChanged = false
        if fitter.calibrationRevision != pipelineCalibrationRevision {
            pipelineCalibrationRevision = fitter.calibrationRevision
            calibrationChanged = fitter.calibration != pipeline.calibration
            if calibrationChanged { pipeline.calibration = fitter.calibration }
        }
        guard let output = pipeline.process(timestamp: time, accel: input.accel, mag: input.mag, gyro: input.gyro)
        else {
            throw InputError("no heading from this sample: the magnetic field is parallel to gravity")
        }
        trackWalking(input, field: output.correctedField, time: time)
        latest = output
        latestDate = date
        lastSampleTime = time
        lastSampleWall = moment.wall
        isStale = false
        let guidanceChanged =
            CalibrationFitter.showsInterferenceMessage(state: fitter.state, interference: output.interference)
            != (publishedCalibration?.message == CalibrationFitter.interferenceMessage)
        if kept == .kept || calibrationChanged || fitter.state.rawValue != publishedCalibration?.state || guidanceChanged {
            publishCalibrationIfChanged(into: &out)
        }
        // Decide on the few fields that matter, and build the message (with its timestamp) only to publish it.
        let wasHolding = limiter.isHolding
        switch limiter.offer(at: time, changed: isSignificant(headingSummary())) {
        case .publish: emit(headingMessage(at: moment), into: &out)
        case .hold: if !wasHolding { held?.increment() }
        case .idle: break
        }
    }

    /// Feeds the step detector and the walking-direction estimator (about 0.1 µs a sample, no allocation) with the
    /// field the pipeline already corrected with the calibration in use, so hard iron does not bend the estimator's
    /// north. The detector gives each step one step late (it holds a step until the next confirms it), and a stride is
    /// the samples between two releases: while walking the strides are shifted by one step and still two steps long;
    /// a walk's last stride takes in up to 2.5 s of standing still after it (the walk ending), or stays open until the
    /// next walk when that step is judged to be the phone being handled.
    func trackWalking(_ input: IMUInput, field: Vector3, time: Double) {
        let accel = SIMD3(input.accel.x, input.accel.y, input.accel.z)
        walking.add(
            time: time, acceleration: accel, magneticField: SIMD3(field.x, field.y, field.z),
            rotationRate: input.gyro.map { SIMD3($0.x, $0.y, $0.z) })
        let steps = stepDetector.add(time: time, acceleration: accel)
        for step in steps { walking.addStep(at: step.time) }
    }

    /// Blends a GPS course (degrees from true north) into the walking direction when the fix moves at 0.5 m/s or
    /// more. Needs the declination (the location's), to turn the course magnetic.
    func fuseCourse(_ course: Double, speed: Double) {
        guard let declination = expectation?.declination, speed.isFinite, speed >= 0.5, course.isFinite,
            course >= 0, course <= 360
        else { return }
        walking.fuseCourse(Angle.normalized(course - declination), speed: speed)
    }

    /// The walking direction in a reference: magnetic, or true with the declination.
    func walkingDirection(in reference: NorthReference) -> Double? {
        guard let magnetic = walking.direction else { return nil }
        guard reference == .true, let declination = expectation?.declination else { return magnetic }
        return Angle.trueHeading(magnetic: magnetic, declination: declination)
    }

    /// The timer: marks the device stale after `staleAfter` seconds without a sample, and
    /// publishes a held heading when its window ends.
    func tick(at moment: Moment, into out: inout [Outbound]) {
        guard let lastWall = lastSampleWall, let lastTime = lastSampleTime else { return }
        if !isStale, moment.wall - lastWall >= configuration.staleAfter {
            isStale = true
            limiter.cancel()
            publishStatusChange(at: moment, into: &out)
            return
        }
        guard !isStale, limiter.isHolding else { return }
        if limiter.expire(at: lastTime + (moment.wall - lastWall)) {
            emit(headingMessage(at: moment), into: &out)
        }
    }

    /// The device's sample time now, estimated from its last sample and the wall clock.
    func estimatedSampleTime(at moment: Moment) -> Double? {
        guard let lastTime = lastSampleTime, let lastWall = lastSampleWall else { return nil }
        return lastTime + max(0, moment.wall - lastWall)
    }

    // MARK: Heading

    /// The status from the permissions and the age of the last sample.
    var status: HeadingStatus {
        switch motion {
        case .denied?, .restricted?: return .noPermission
        case .unavailable?: return .noSensor
        case .authorized?, .notDetermined?, nil: return isStale || lastSampleTime == nil ? .stale : .ok
        }
    }

    /// The heading message for the current state, or nil when there is nothing to say yet (no
    /// sample, no permission problem, nothing published before).
    ///
    /// Without any sample the status is `stale` once a permission problem has been cleared: the
    /// retained message must not keep saying `noPermission`, and no sample has come.
    func headingMessage(at moment: Moment) -> HeadingMessage? {
        let status = status
        guard latest != nil || publishedHeading != nil || status == .noPermission || status == .noSensor
        else { return nil }
        let reference: NorthReference = expectation == nil ? .magnetic : north
        let declination = expectation?.declination
        var magnetic = latest?.magneticHeading
        var trueHeading = magnetic.flatMap { value in declination.map { Angle.trueHeading(magnetic: value, declination: $0) } }
        let current = reference == .true ? trueHeading : magnetic
        let heading = standing(current, reference: reference) { $0.heading }
        if let heading, heading != current {
            // The published angle stands: the other north follows it with today's declination.
            if reference == .true {
                trueHeading = heading
                magnetic = declination.map { Angle.normalized(heading - $0) } ?? magnetic
            } else {
                magnetic = heading
                trueHeading = declination.map { Angle.trueHeading(magnetic: heading, declination: $0) }
            }
        }
        let date = status == .ok ? (latestDate ?? moment.date) : moment.date
        return HeadingMessage(
            timestamp: Timestamp.format(date), status: status, heading: heading, north: reference,
            magneticHeading: magnetic, trueHeading: trueHeading, declination: declination,
            cardinal: heading.map { Cardinal(heading: $0) }, accuracy: latest.map { adjustedAccuracy($0.accuracy) },
            pitch: latest?.pitch, roll: latest?.roll, calibration: fitter.state,
            interference: latest?.interference ?? false, fieldStrength: latest?.smoothedFieldStrength,
            walkingDirection: standingWalkingDirection(in: reference))
    }

    /// The walking direction a message carries: the published one within the dead band (``standing(_:reference:in:)``),
    /// and a restored one while this run has not estimated its own yet (``awaitsRestoredWalkingDirection``).
    func standingWalkingDirection(in reference: NorthReference) -> Double? {
        let current = walkingDirection(in: reference)
        if current == nil, awaitsRestoredWalkingDirection, let summary = publishedSummary, summary.north == reference {
            return summary.walkingDirection
        }
        return standing(current, reference: reference) { $0.walkingDirection }
    }

    /// The published angle in place of the current one while the current one stays within the dead band of it.
    ///
    /// The dead band makes the published angle the reference: a message sent for another reason (a status change such
    /// as stale and back, a rate window's end) repeats it instead of the filter's value of the moment, a hair away.
    /// Readers then compute the same as when nothing was sent (the position service moves on every heading it gets).
    func standing(
        _ current: Double?, reference: NorthReference, in published: (HeadingSummary) -> Double?
    ) -> Double? {
        guard let current, let summary = publishedSummary, summary.north == reference, let before = published(summary),
            !Self.moved(current, from: before, deadBand: configuration.deadBand)
        else { return current }
        return before
    }

    /// Widens the accuracy in the WMM's caution and blackout zones, where the horizontal field
    /// is weak: heading error grows as 1/H, and in the blackout zone it is at least 30°.
    func adjustedAccuracy(_ accuracy: Double) -> Double {
        guard let expectation else { return accuracy }
        let weakness = FieldReliability.cautionThreshold / max(expectation.horizontalIntensity, 1)
        switch expectation.reliability {
        case .normal: return accuracy
        case .caution: return min(180, accuracy * max(1, weakness))
        case .blackout: return min(180, max(30, accuracy * weakness))
        }
    }

    /// The fields of a heading message that decide whether it is worth publishing.
    struct HeadingSummary {
        var status: HeadingStatus
        var north: NorthReference
        var heading: Double?
        var calibration: CalibrationState
        var interference: Bool
        var hasDeclination: Bool
        var walkingDirection: Double?

        init(
            status: HeadingStatus, north: NorthReference, heading: Double?, calibration: CalibrationState,
            interference: Bool, hasDeclination: Bool, walkingDirection: Double? = nil
        ) {
            self.status = status
            self.north = north
            self.heading = heading
            self.calibration = calibration
            self.interference = interference
            self.hasDeclination = hasDeclination
            self.walkingDirection = walkingDirection
        }

        /// The summary of a message this compass wrote (so every field holds one of the contract's values).
        init(_ message: HeadingMessage) {
            self.init(
                status: message.headingStatus ?? .ok, north: message.northReference ?? .magnetic, heading: message.heading,
                calibration: message.calibrationState ?? .uncalibrated, interference: message.interference ?? false,
                hasDeclination: message.declination != nil, walkingDirection: message.walkingDirection)
        }
    }

    /// The summary of what ``headingMessage(at:)`` would say now, without building it (no timestamp to format).
    func headingSummary() -> HeadingSummary? {
        let status = status
        guard latest != nil || publishedHeading != nil || status == .noPermission || status == .noSensor
        else { return nil }
        let reference: NorthReference = expectation == nil ? .magnetic : north
        let magnetic = latest?.magneticHeading
        let heading: Double?
        if reference == .true {
            heading = magnetic.flatMap { value in
                expectation.map { Angle.trueHeading(magnetic: value, declination: $0.declination) }
            }
        } else {
            heading = magnetic
        }
        return HeadingSummary(
            status: status, north: reference, heading: heading, calibration: fitter.state,
            interference: latest?.interference ?? false, hasDeclination: expectation != nil,
            walkingDirection: walkingDirection(in: reference))
    }

    /// Whether a message differs from the last published one enough to publish it.
    func isSignificant(_ message: HeadingMessage?) -> Bool {
        isSignificant(message.map(HeadingSummary.init))
    }

    /// Whether a heading summarised so differs from the last published one enough to publish it.
    func isSignificant(_ message: HeadingSummary?) -> Bool {
        guard let message else { return false }
        guard let published = publishedSummary else { return true }
        if message.status != published.status || message.north != published.north
            || message.calibration != published.calibration || message.interference != published.interference
            || message.hasDeclination != published.hasDeclination
        {
            return true
        }
        var walking = message.walkingDirection
        if awaitsRestoredWalkingDirection {
            if walking == nil { walking = published.walkingDirection } else { awaitsRestoredWalkingDirection = false }
        }
        return Self.moved(message.heading, from: published.heading, deadBand: configuration.deadBand)
            || Self.moved(walking, from: published.walkingDirection, deadBand: configuration.deadBand)
    }

    /// Whether an angle moved past the dead band, or appeared or vanished.
    static func moved(_ now: Double?, from before: Double?, deadBand: Double) -> Bool {
        switch (now, before) {
        case (let now?, let before?): return abs(Angle.difference(from: before, to: now)) > deadBand
        case (nil, nil): return false
        default: return true
        }
    }

    /// Publishes a heading and updates the bearing lock from it.
    func emit(_ message: HeadingMessage?, into out: inout [Outbound]) {
        guard let message else { return }
        publishedHeading = message
        publishedSummary = HeadingSummary(message)
        out.append(.heading(message))
        publishLockIfChanged(force: false, into: &out)
    }

    /// Publishes at once a change that does not come from a sample (status, settings, location),
    /// and starts a rate window so the next samples respect the limit.
    func publishStatusChange(at moment: Moment, into out: inout [Outbound]) {
        let message = headingMessage(at: moment)
        guard isSignificant(message) else { return }
        if let time = estimatedSampleTime(at: moment) { limiter.recordPublication(at: time) }
        emit(message, into: &out)
    }
}
