/// Counts steps from a phone's raw accelerometer, whatever the way the phone is carried.
///
/// Feed every sample to ``add(time:acceleration:)``; it returns the steps that sample released (usually none).
/// One value per device: it is a small struct, allocation-free and O(1) per sample.
///
/// The algorithm:
/// 1. The orientation-free signal is `|a| − g`, where `g` is a low-pass (``StepDetectorConfiguration/gravityTimeConstant``)
///    of `|a|` itself, then two cascaded one-pole low-passes (``StepDetectorConfiguration/lowPassCutoff``) whose
///    coefficients come from each sample's own time step, so 50...200 Hz, jitter and gaps all give the same band.
/// 2. A peak/valley search with adaptive hysteresis finds the swings; a peak whose swing (peak minus the valley
///    before it) exceeds both ``StepDetectorConfiguration/minimumAmplitude`` and a fraction of the running step
///    amplitude is a step candidate.
/// 3. Candidates must come at a walking rhythm (``StepDetectorConfiguration/minimumStepInterval``...
///    ``StepDetectorConfiguration/maximumStepInterval``, each interval within
///    ``StepDetectorConfiguration/regularityTolerance`` of the same foot's previous one). After
///    ``StepDetectorConfiguration/confirmationSteps`` of them walking is confirmed and they are all released; then
///    each further candidate counts at once, until
///    no step comes for ``StepDetectorConfiguration/maximumStepInterval``. Isolated bumps, picking the phone up,
///    shaking and knocks never reach confirmation.
/// 4. A gap in the samples longer than ``StepDetectorConfiguration/gapThreshold`` restarts the filters (no step
///    comes from the jump), and samples going back in time are ignored.
public struct StepDetector: Sendable {
    /// The parameters in use.
    public let configuration: StepDetectorConfiguration
    /// Steps counted so far.
    public private(set) var steps: Int = 0
    /// Sum of the lengths of the counted steps, metres.
    public private(set) var distance: Double = 0
    /// Whether a walk is confirmed (steps now count as they come).
    public private(set) var isWalking = false

    private var lastSampleTime = -Double.infinity
    private var hasSample = false
    private var gravity = 0.0
    private var stage1 = 0.0
    private var stage2 = 0.0
    // Peak/valley search.
    private var searchingPeak = true
    private var extreme = 0.0
    private var extremeTime = 0.0
    private var lastValley = 0.0
    private var amplitude: Double
    private var lastAcceptedPeakTime = -Double.infinity
    // Walking state.
    private var pending = DetectedSteps()
    private var lastStepTime = -Double.infinity

    /// A detector with `configuration`.
    public init(configuration: StepDetectorConfiguration = .defaults) {
        self.configuration = configuration
        amplitude = configuration.minimumAmplitude
    }

    /// Forgets everything, counts included.
    public mutating func reset() {
        self = StepDetector(configuration: configuration)
    }

    /// The band-passed, orientation-free signal (m/s²) after the last sample; for plots and diagnostics.
    public var signal: Double { stage2 }

    /// Processes one sample: `time` in seconds (monotonic; jitter and gaps are fine), `acceleration` in m/s²
    /// including gravity, in any frame. Returns the steps this sample released, oldest first.
    public mutating func add(time: Double, acceleration: SIMD3<Double>) -> DetectedSteps {
        var released = DetectedSteps()
        guard time.isFinite else { return released }
        let a = acceleration
        let magnitude = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
        guard magnitude.isFinite else { return released }
        if !hasSample {
            hasSample = true
            lastSampleTime = time
            gravity = magnitude
            restartSearch(at: time)
            return released
        }
        let dt = time - lastSampleTime
        guard dt > 0 else { return released }
        lastSampleTime = time
        if dt > configuration.gapThreshold {
            gravity += (magnitude - gravity) * (dt / (configuration.gravityTimeConstant + dt))
            stage1 = magnitude - gravity
            stage2 = stage1
            restartSearch(at: time)
            if !isWalking { pending.removeAll() }
            endWalkIfStale(at: time)
            return released
        }
        gravity += (magnitude - gravity) * (dt / (configuration.gravityTimeConstant + dt))
        let tau = 1 / (2 * Double.pi * configuration.lowPassCutoff)
        let alpha = dt / (tau + dt)
        stage1 += (magnitude - gravity - stage1) * alpha
        stage2 += (stage1 - stage2) * alpha
        let y = stage2

        // Let the running amplitude relax when no step has come for a while (after a bump or a walk).
        if time - lastAcceptedPeakTime > configuration.maximumStepInterval {
            let decay = dt / (2 + dt)
            amplitude += (configuration.minimumAmplitude - amplitude) * decay
        }
        let hysteresis = max(0.3 * configuration.minimumAmplitude, configuration.hysteresisFraction * amplitude)
        if searchingPeak {
            if y > extreme {
                extreme = y
                extremeTime = time
            } else if extreme - y > hysteresis {
                let swing = extreme - lastValley
                let peakTime = extremeTime
                searchingPeak = false
                extreme = y
                extremeTime = time
                candidate(at: peakTime, swing: swing, into: &released)
            }
        } else {
            if y < extreme {
                extreme = y
                extremeTime = time
            } else if y - extreme > hysteresis {
                lastValley = extreme
                searchingPeak = true
                extreme = y
                extremeTime = time
            }
        }
        endWalkIfStale(at: time)
        return released
    }

    private mutating func restartSearch(at time: Double) {
        searchingPeak = true
        extreme = stage2
        extremeTime = time
        lastValley = stage2
    }

    private mutating func endWalkIfStale(at time: Double) {
        if isWalking && time - lastStepTime > configuration.maximumStepInterval + 0.5 {
            isWalking = false
        }
    }

    private mutating func candidate(at time: Double, swing: Double, into released: inout DetectedSteps) {
        let threshold = max(configuration.minimumAmplitude, configuration.relativeAmplitude * amplitude)
        guard swing >= threshold else {
            // Still a real swing: let a walk that follows a big bump pull the amplitude down.
            if swing >= configuration.minimumAmplitude { amplitude += (swing - amplitude) * 0.1 }
            return
        }
        amplitude += (swing - amplitude) * 0.3
        lastAcceptedPeakTime = time
        let step = DetectedStep(time: time, length: configuration.stepLength.length(accelerationRange: swing))
        if isWalking {
            let interval = time - lastStepTime
            if interval < configuration.minimumStepInterval { return }
            if interval <= configuration.maximumStepInterval {
                count(step, into: &released)
                return
            }
            isWalking = false
            pending.removeAll()
        }
        if let last = pending.last {
            let interval = time - last.time
            if interval < configuration.minimumStepInterval || interval > configuration.maximumStepInterval {
                pending.removeAll()
            } else if pending.count >= 3 {
                // Compare with the interval of the same foot, two steps back: left and right intervals often
                // differ (a phone in a trouser pocket or swinging in one hand sees the two feet differently),
                // but each foot's rhythm is regular.
                let sameFoot = pending[pending.count - 2].time - pending[pending.count - 3].time
                if abs(interval - sameFoot) > configuration.regularityTolerance * sameFoot {
                    pending.dropAllButLast(1)
                }
            } else if pending.count == 2 {
                // Only the other foot's interval is known yet: allow twice the tolerance.
                let previous = last.time - pending[0].time
                if abs(interval - previous) > 2 * configuration.regularityTolerance * previous {
                    pending.dropAllButLast(1)
                }
            }
        }
        pending.append(step)
        if pending.count >= configuration.confirmationSteps {
            isWalking = true
            for confirmed in pending { count(confirmed, into: &released) }
            pending.removeAll()
        }
    }

    private mutating func count(_ step: DetectedStep, into released: inout DetectedSteps) {
        released.append(step)
        steps += 1
        distance += step.length
        lastStepTime = step.time
    }
}
