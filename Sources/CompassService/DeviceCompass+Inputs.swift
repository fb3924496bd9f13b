import CompassKit
import Foundation
import GeoMagnetism
import ServiceRuntime

/// The device's other inputs: location, permissions and commands.
extension DeviceCompass {
    /// Uses a new location for the declination and the expected field.
    func locate(_ environment: MagneticEnvironment, at moment: Moment, into out: inout [Outbound]) {
        self.environment = environment
        refreshExpectation(at: latestDate ?? moment.date)
        publishCalibrationIfChanged(into: &out)
        publishStatusChange(at: moment, into: &out)
    }

    /// Evaluates the model at a date and hands the expectations to the filters.
    func refreshExpectation(at date: Date) {
        guard var environment else { return }
        let value = environment.expectation(at: date)
        self.environment = environment
        guard value != expectation else { return }
        expectation = value
        pipeline.declination = value.declination
        pipeline.expectedFieldStrength = value.fieldStrength
        pipeline.expectedInclination = value.inclination
        fitter.expectedFieldStrength = value.fieldStrength
        fitter.expectedInclination = value.inclination
    }

    /// Applies the motion permission.
    func permit(motion: SensorPermission, at moment: Moment, into out: inout [Outbound]) {
        self.motion = motion
        publishStatusChange(at: moment, into: &out)
    }

    /// Applies `cmd/settings`.
    func setNorth(_ reference: NorthReference, at moment: Moment, into out: inout [Outbound]) {
        north = reference
        publishStatusChange(at: moment, into: &out)
    }

    /// Applies `cmd/calibrate`: `start` collects afresh (the current calibration stays in use
    /// until a better one forms), `reset` forgets the calibration.
    func calibrate(reset: Bool, at moment: Moment, into out: inout [Outbound]) {
        if reset { fitter.reset() } else { fitter.start() }
        pipeline.calibration = fitter.calibration
        let message = calibrationMessage()
        publishedCalibration = message
        out.append(.calibration(message))
        publishStatusChange(at: moment, into: &out)
    }

    /// Applies `cmd/bearing-lock` `lock` (its numbers already checked by the contract's decoder): the bearing given,
    /// or the current heading.
    /// - Throws: ``InputError`` when locking without a bearing before any heading is known.
    func lock(bearing: Double?, threshold: Double?, at moment: Moment, into out: inout [Outbound]) throws(InputError) {
        guard let bearing = bearing ?? headingMessage(at: moment)?.heading else {
            throw InputError("no heading is known for this device yet: give a 'bearing' to lock")
        }
        lock.lock(at: bearing, threshold: threshold ?? BearingLock.defaultThreshold)
        publishLockIfChanged(force: true, into: &out)
    }

    /// Applies `cmd/bearing-lock` `unlock`.
    func unlock(into out: inout [Outbound]) {
        lock.unlock()
        publishLockIfChanged(force: true, into: &out)
    }

    /// Puts a retained calibration back in use after a restart.
    /// - Returns: Whether it was used: only while the device has no calibration of its own.
    func restore(_ message: CalibrationMessage) throws(InputError) -> Bool {
        // The fields the compass always writes, checked in its order before anything is used.
        guard let state = message.calibrationState else {
            throw InputError("'state' is '\(message.state.prefix(40))'; expected uncalibrated, calibrating, calibrated or needsCalibration")
        }
        guard let givenQuality = message.quality else { throw InputError("the field 'quality' is missing") }
        guard let givenCoverage = message.coverage else { throw InputError("the field 'coverage' is missing") }
        guard let hardIron = message.hardIronVector else { throw InputError("the field 'hardIron' is missing") }
        guard let softIron = message.softIronMatrix else { throw InputError("the field 'softIron' is missing") }
        guard message.message != nil else { throw InputError("the field 'message' is missing") }
        guard state != .uncalibrated else { return false }
        guard fitter.calibration == nil, fitter.state == .uncalibrated else { return false }
        guard hardIron.isFinite else { throw InputError("'hardIron' must hold three finite numbers") }
        guard softIron.isFinite, abs(softIron.determinant) > 1e-9 else {
            throw InputError("'softIron' must be a finite, invertible 3×3 matrix")
        }
        let quality = try FieldCheck.finite(givenQuality, "quality", in: 0...1)
        let coverage = try FieldCheck.finite(givenCoverage, "coverage", in: 0...1)
        let strength = try (message.fieldStrength ?? message.expectedFieldStrength).map { value throws(InputError) in
            try FieldCheck.finite(value, "fieldStrength", in: 1...1_000)
        }
        let calibration = Calibration(
            hardIron: hardIron, softIron: softIron, quality: quality, coverage: coverage,
            fitResidual: 0, fieldStrength: strength ?? 50, model: .external)
        fitter.restore(calibration)
        pipeline.calibration = fitter.calibration
        publishedCalibration = message
        return true
    }

    // MARK: Calibration and bearing-lock messages

    /// The calibration message for the current state.
    func calibrationMessage() -> CalibrationMessage {
        let calibration = fitter.calibration
        return CalibrationMessage(
            state: fitter.state, quality: calibration?.quality ?? 0,
            coverage: fitter.state == .calibrated ? (calibration?.coverage ?? 0) : fitter.coverage,
            hardIron: calibration?.hardIron ?? .zero, softIron: calibration?.softIron ?? .identity,
            fieldStrength: calibration?.fieldStrength, expectedFieldStrength: expectation?.fieldStrength,
            message: fitter.message(interference: latest?.interference ?? false))
    }

    /// Publishes the calibration when it changed meaningfully: another state, quality or
    /// coverage by 0.02 or 0.05, the hard iron by 0.5 µT, the expected field strength, or the
    /// interference guidance shown or withdrawn (``CalibrationFitter/interferenceMessage``).
    func publishCalibrationIfChanged(into out: inout [Outbound]) {
        let message = calibrationMessage()
        if let before = publishedCalibration {
            let expectedChanged: Bool
            switch (message.expectedFieldStrength, before.expectedFieldStrength) {
            case (let now?, let then?): expectedChanged = abs(now - then) > 0.1
            case (nil, nil): expectedChanged = false
            default: expectedChanged = true
            }
            let meaningful =
                message.state != before.state || abs((message.quality ?? 0) - (before.quality ?? 0)) >= 0.02
                || abs((message.coverage ?? 0) - (before.coverage ?? 0)) >= 0.05
                || Self.distance(message.hardIron, before.hardIron) >= 0.5 || expectedChanged
                || (message.message == CalibrationFitter.interferenceMessage)
                    != (before.message == CalibrationFitter.interferenceMessage)
            guard meaningful else { return }
        }
        publishedCalibration = message
        out.append(.calibration(message))
    }

    /// How far apart two hard-iron offsets are (µT); infinite when one is missing.
    static func distance(_ a: SIMD3<Double>?, _ b: SIMD3<Double>?) -> Double {
        guard let a, let b else { return a == nil && b == nil ? 0 : .infinity }
        let difference = a - b
        return (difference * difference).sum().squareRoot()
    }

    /// Publishes the bearing lock when asked to, or when the deviation moved past the dead band
    /// or `exceeded` flipped.
    func publishLockIfChanged(force: Bool, into out: inout [Outbound]) {
        guard force || lock.isLocked else { return }
        let heading = publishedHeading?.heading
        let deviation = heading.flatMap { lock.deviation(heading: $0) }
        let message = BearingLockMessage(
            locked: lock.isLocked, bearing: lock.bearing, deviation: deviation, threshold: lock.threshold,
            exceeded: heading.map { lock.isExceeded(heading: $0) } ?? false)
        if !force, let before = publishedLock {
            let moved: Bool
            switch (deviation, before.deviation) {
            case (let now?, let then?): moved = abs(now - then) > configuration.deadBand
            case (nil, nil): moved = false
            default: moved = true
            }
            guard moved || message.exceeded != before.exceeded || message.locked != before.locked else { return }
        }
        publishedLock = message
        out.append(.bearingLock(message))
    }
}
