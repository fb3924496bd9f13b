import Foundation

/// Collects magnetometer samples, fits a calibration and runs the calibration state machine.
///
/// A value type holding one device's state; the service keeps one per device and feeds it every
/// IMU sample. Cost per sample is a few comparisons; a fit runs every
/// ``Configuration/fitInterval`` kept samples (once calibrated, every quarter-buffer of kept
/// samples).
///
/// **Fits.** The sphere fit (``HardIronFit``) always runs first and gives the centre for the
/// coverage cells. The ellipsoid fit (``EllipsoidFit``, scaled to the expected field strength
/// when known) is used only when coverage reaches ``Configuration/ellipsoidMinCoverage`` and its
/// shape is a real ellipsoid; otherwise the sphere fit is the candidate; if neither succeeds the
/// last calibration stays. A candidate must also have a plausible radius.
///
/// **Quality** = `e · √v · m` with `e = clamp(1 − (residual/radius)/0.05)`,
/// `v = clamp(coverage/0.7)` and `m` = 1 for an ellipsoid, 0.8 for a sphere (soft iron left
/// uncorrected). A candidate replaces the calibration in use when there is none, after
/// ``start()``, or when its quality is at least the current one's minus 0.02 (so the fit follows
/// slow drift without trading a good fit for a worse one).
///
/// **States.** `uncalibrated` (nothing yet) → `calibrating` (samples arriving; a provisional
/// calibration may be in use) → `calibrated` (quality ≥ ``Configuration/calibratedMinQuality``
/// and coverage ≥ ``Configuration/calibratedMinCoverage``). From `calibrated`, if every checked
/// the running fraction of checked samples that disagree with the calibration (exponential
/// average, τ = ``Configuration/inconsistencyTimeConstant``) passes
/// ``Configuration/needsCalibrationRatio``, the state becomes `needsCalibration`: the buffer is
/// emptied and the gate opened so a new calibration can form; a calibrated-grade fit, or the
/// fraction falling below ``Configuration/recoveredRatio``, returns it to `calibrated`.
///
/// **Gate.** Once calibrated, a sample is kept only if its corrected strength is within
/// ``Configuration/strengthTolerance`` of the calibration's field strength (which is the
/// expected strength when the ellipsoid fit was scaled to it) and, when the device is steady and
/// an expected inclination is given, its dip within ``Configuration/dipTolerance``; so passing
/// interference does not poison the fit.
public struct CalibrationFitter: Sendable {
    /// The tuning.
    public let configuration: Configuration
    /// The expected field strength in µT (the WMM's F at the device's location), if known.
    public var expectedFieldStrength: Double?
    /// The expected inclination (dip) in degrees, positive down (the WMM's I), if known.
    public var expectedInclination: Double?
    /// The current state.
    public internal(set) var state: CalibrationState = .uncalibrated
    /// The calibration in use, if any.
    public internal(set) var calibration: Calibration? {
        didSet { calibrationRevision &+= 1 }
    }
    /// Changes whenever ``calibration`` is set: a user comparing it with the revision it last took skips comparing
    /// calibrations on every sample.
    public private(set) var calibrationRevision = 0
    /// The reason the last fit attempt failed, if it did.
    public internal(set) var lastFitError: FitError?
    /// The number of samples refused by the gate since the last reset.
    public internal(set) var rejectedCount = 0
    /// The number of samples kept since the last reset (including ones later replaced).
    public internal(set) var keptCount = 0

    let cells: SphereCoverage
    var samples: [Vector3] = []
    var sampleCells: [Int] = []
    var sampleSerials: [Int] = []
    var cellCounts: [Int]
    var cellCentre: Vector3 = .zero
    var boundsMin = Vector3(.infinity, .infinity, .infinity)
    var boundsMax = Vector3(-.infinity, -.infinity, -.infinity)
    var nextSerial = 0
    var lastKept: Vector3?
    var lastExamined: Double?
    var keptSinceFit = 0
    var gateEnabled = false
    var replaceAny = false
    var inconsistency = 0.0
    var lastConsistencyCheck: Double?

    /// Creates a fitter with no data and no calibration.
    /// - Parameters:
    ///   - configuration: The tuning.
    ///   - expectedFieldStrength: The expected field strength in µT, if known.
    ///   - expectedInclination: The expected dip in degrees, if known.
    public init(
        configuration: Configuration = Configuration(), expectedFieldStrength: Double? = nil,
        expectedInclination: Double? = nil
    ) {
        self.configuration = configuration
        self.expectedFieldStrength = expectedFieldStrength
        self.expectedInclination = expectedInclination
        self.cells = SphereCoverage(binCount: configuration.binCount)
        self.cellCounts = [Int](repeating: 0, count: cells.binCount)
    }

    /// The number of samples held for fitting.
    public var sampleCount: Int { samples.count }

    /// The fraction of direction cells the held samples cover, 0...1, around the current centre
    /// estimate (the calibration's hard iron, the last sphere fit, or the bounding-box centre).
    public var coverage: Double {
        Double(cellCounts.lazy.filter { $0 > 0 }.count) / Double(max(1, cells.binCount))
    }

    /// Whether the gate is active (only once a calibrated-grade fit exists).
    public var isGating: Bool { gateEnabled && calibration != nil }

    /// A sentence telling the user what to do, for the contract's `message` field.
    public var message: String {
        switch state {
        case .uncalibrated:
            return "Move the phone in a figure-8 to calibrate the compass."
        case .calibrating:
            let percent = Int((coverage * 100).rounded())
            return "Keep moving the phone in a figure-8, tilting it through all directions (\(percent)% covered)."
        case .calibrated:
            return "Compass calibrated."
        case .needsCalibration:
            return "The magnetic field no longer matches the calibration: move away from metal and magnets, "
                + "then move the phone in a figure-8."
        }
    }

    /// The guidance while a field far outside the Earth's is measured before calibration.
    public static let interferenceMessage =
        "Magnetic interference: the field is far from any the Earth has. Move away from metal and magnets, "
        + "or move the phone in a figure-8 to calibrate the compass."

    /// The sentence for the contract's `message` field, given whether the heading reports interference: before
    /// calibration (`uncalibrated`, `calibrating`) interference gives ``interferenceMessage``; otherwise
    /// ``message``.
    /// - Parameter interference: Whether the heading pipeline flags interference now.
    public func message(interference: Bool) -> String {
        showsInterferenceMessage(interference: interference) ? Self.interferenceMessage : message
    }

    /// Whether ``message(interference:)`` gives ``interferenceMessage``.
    /// - Parameter interference: Whether the heading pipeline flags interference now.
    public func showsInterferenceMessage(interference: Bool) -> Bool {
        Self.showsInterferenceMessage(state: state, interference: interference)
    }

    /// ``showsInterferenceMessage(interference:)`` for a fitter in `state`: what the compass asks for every sample,
    /// without passing the whole fitter (a call on a fitter stored in a class copies it, its arrays retained).
    public static func showsInterferenceMessage(state: CalibrationState, interference: Bool) -> Bool {
        interference && (state == .uncalibrated || state == .calibrating)
    }

    /// Adds a raw magnetometer sample.
    /// - Parameters:
    ///   - raw: The raw reading in µT, device frame.
    ///   - timestamp: Its sample time in seconds.
    ///   - gravity: The accelerometer reading (m/s²) at the same time, if available; it enables
    ///     the dip check while the device is steady.
    /// - Returns: What was done with the sample.
    @discardableResult
    public mutating func add(_ raw: Vector3, at timestamp: Double, gravity: Vector3? = nil) -> SampleResult {
        guard raw.isFinite, timestamp.isFinite else { return .invalid }
        if let last = lastExamined, timestamp >= last, timestamp - last < configuration.minSampleInterval - 1e-9 {
            return .skipped
        }
        lastExamined = timestamp

        if let calibration {
            let verdict = check(raw, against: calibration, gravity: gravity)
            trackConsistency(verdict == .kept, at: timestamp)
            if gateEnabled, verdict != .kept, state != .needsCalibration {
                rejectedCount += 1
                return verdict
            }
        }
        if let lastKept,
            (raw - lastKept).squaredNorm < configuration.minSampleDistance * configuration.minSampleDistance
        {
            return .skipped
        }
        insert(raw)
        if state == .uncalibrated { state = .calibrating }
        // Once calibrated with a full buffer, refitting after a quarter of it is renewed is enough
        // and keeps the cost per sample low.
        let interval =
            state == .calibrated ? max(configuration.fitInterval, samples.count / 4) : configuration.fitInterval
        if keptSinceFit >= interval, samples.count >= configuration.minSamplesForSphere {
            fit()
        }
        return .kept
    }

    /// Starts a user-requested calibration: drops the collected samples and lets the next good
    /// fit replace the calibration in use (which stays in use until then).
    public mutating func start() {
        clearSamples()
        replaceAny = true
        gateEnabled = false
        inconsistency = 0
        lastConsistencyCheck = nil
        state = .calibrating
    }

    /// Forgets everything: samples, calibration and counters.
    public mutating func reset() {
        clearSamples()
        calibration = nil
        lastFitError = nil
        rejectedCount = 0
        keptCount = 0
        replaceAny = false
        gateEnabled = false
        inconsistency = 0
        lastConsistencyCheck = nil
        lastExamined = nil
        state = .uncalibrated
    }

    /// Puts a known calibration in use, e.g. the retained one after a restart.
    /// - Parameter calibration: The calibration to use.
    public mutating func restore(_ calibration: Calibration) {
        self.calibration = calibration
        if meetsCalibrated(calibration) {
            state = .calibrated
            gateEnabled = true
        } else {
            state = .calibrating
            gateEnabled = false
        }
        recentre(on: calibration.hardIron)
    }

    /// Runs a fit now on the held samples, regardless of ``Configuration/fitInterval``.
    /// - Returns: Whether a new calibration was put in use.
    @discardableResult
    public mutating func fit() -> Bool {
        keptSinceFit = 0
        let sphere: HardIronFit?
        do {
            sphere = try HardIronFit.fit(samples)
            lastFitError = nil
        } catch {
            sphere = nil
            lastFitError = error
        }
        recentre(on: sphere?.center ?? calibration?.hardIron ?? centreOfBounds)
        let coverage = self.coverage

        var candidate: Calibration?
        if samples.count >= configuration.minSamplesForEllipsoid, coverage >= configuration.ellipsoidMinCoverage {
            do {
                let ellipsoid = try EllipsoidFit.fit(samples, radius: expectedFieldStrength)
                if isPlausible(radius: ellipsoid.fittedRadius) {
                    candidate = makeCalibration(
                        hardIron: ellipsoid.center, softIron: ellipsoid.softIron, residual: ellipsoid.residual,
                        radius: ellipsoid.radius, coverage: coverage, model: .ellipsoid)
                }
            } catch {
                lastFitError = error
            }
        }
        if candidate == nil, let sphere, isPlausible(radius: sphere.radius) {
            candidate = makeCalibration(
                hardIron: sphere.center, softIron: .identity, residual: sphere.residual, radius: sphere.radius,
                coverage: coverage, model: .sphere)
        }
        guard let candidate else { return false }
        let good = meetsCalibrated(candidate)
        let accept: Bool
        if state == .needsCalibration {
            accept = good
        } else if let current = calibration, !replaceAny {
            accept = candidate.quality >= current.quality - 0.02
        } else {
            accept = true
        }
        guard accept else { return false }
        calibration = candidate
        replaceAny = false
        if good {
            state = .calibrated
            gateEnabled = true
            inconsistency = 0
        } else if state != .calibrated {
            state = .calibrating
        }
        return true
    }
}
