/// Counts steps from a phone's raw accelerometer, whatever the way the phone is carried.
///
/// Feed every sample to ``add(time:acceleration:)``; it returns the steps that sample released (usually none). Call
/// ``finish()`` when the samples end, for the walk's last step.
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
///    ``StepDetectorConfiguration/regularityTolerance`` of the same foot's previous one; a much smaller second peak
///    right after a candidate is ignored). The swings of the candidates that confirm a walk must be of one size
///    (the first may be weaker), which rejects handling the phone at a step-like rhythm. After
///    ``StepDetectorConfiguration/confirmationSteps`` of them walking is confirmed and all but the last are released;
///    then each candidate is held until the next one confirms it, until no step comes for
///    ``StepDetectorConfiguration/maximumStepInterval``. Isolated bumps, picking the phone up, shaking and knocks
///    never reach confirmation.
/// 4. When the walk ends (no step in time, a gap, or ``finish()`` at the end of the samples) the held candidate
///    counts unless it is far stronger or far later than the walk's last steps: the phone handled as the walk ends.
/// 5. A gap in the samples longer than ``StepDetectorConfiguration/gapThreshold`` restarts the filters (no step
///    comes from the jump), and samples going back in time are ignored.
public struct StepDetector: Sendable {
    /// The parameters in use.
    public let configuration: StepDetectorConfiguration
    /// Steps counted so far.
    public private(set) var steps: Int = 0
    /// Sum of the lengths of the counted steps, metres.
    public private(set) var distance: Double = 0
    /// The mean length of the counted steps, metres, once at least 10 are counted (nil before): what a pedometer's
    /// count is multiplied by to give it a distance.
    public var meanStepLength: Double? { steps >= 10 ? distance / Double(steps) : nil }
    /// Whether a walk is confirmed (steps now count one step late: each is held until the next confirms it).
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
    /// Running step amplitude (swing, m/s²) for the relative threshold; one swing raises it by a bounded factor only.
    private var amplitude: Double
    /// Running amplitude for the hysteresis of the peak/valley search: follows every accepted swing at once, so
    /// the notches inside a strong step do not split it.
    private var searchAmplitude: Double
    private var lastAcceptedPeakTime = -Double.infinity
    // Walking state.
    private var pending = DetectedSteps()
    /// The time of the last candidate taken as a step (counted or held).
    private var lastStepTime = -Double.infinity
    /// While walking, the latest step waits here until the next one confirms it (or the walk ends): its swing in
    /// `length`.
    private var held: DetectedStep?
    /// The last counted steps, their swings in `length`: what a held step that ends a walk is judged against.
    private var recent = DetectedSteps()

    /// A detector with `configuration`.
    public init(configuration: StepDetectorConfiguration = .defaults) {
        self.configuration = configuration
        amplitude = configuration.minimumAmplitude
        searchAmplitude = configuration.minimumAmplitude
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
            endWalkIfStale(at: time, into: &released)
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
            searchAmplitude += (configuration.minimumAmplitude - searchAmplitude) * decay
        }
        let hysteresis = max(0.3 * configuration.minimumAmplitude, configuration.hysteresisFraction * searchAmplitude)
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
        endWalkIfStale(at: time, into: &released)
        return released
    }

    /// Ends the samples (a recording's end, a phone that stopped sending): the step held back for confirmation is
    /// judged now, as when a walk ends. Returns it when it counts. The detector can go on with later samples.
    public mutating func finish() -> DetectedSteps {
        var released = DetectedSteps()
        resolveHeld(into: &released)
        isWalking = false
        return released
    }

    /// Whether a step is held back, waiting for the next one or the end of the walk (see ``finish()``).
    public var isHoldingStep: Bool { held != nil }

    private mutating func restartSearch(at time: Double) {
        searchingPeak = true
        extreme = stage2
        extremeTime = time
        lastValley = stage2
    }

    private mutating func endWalkIfStale(at time: Double, into released: inout DetectedSteps) {
        if isWalking && time - lastStepTime > configuration.maximumStepInterval + 0.5 {
            resolveHeld(into: &released)
            isWalking = false
        }
    }

    /// Takes a candidate as the walk's latest step: the one held before it is confirmed and counted.
    private mutating func hold(_ step: DetectedStep, into released: inout DetectedSteps) {
        if let held { count(held, into: &released) }
        held = step
        lastStepTime = step.time
    }

    /// The walk ended with a step held: it counts unless it is out of the walk's pattern, which is the phone being
    /// handled as the walk ends (lowered from the ear, taken out of a pocket to stop the recording): a swing over
    /// ``endingSwingRatio`` times the median of the last steps, or an interval over ``endingIntervalRatio`` times
    /// their median interval.
    private mutating func resolveHeld(into released: inout DetectedSteps) {
        guard let step = held else { return }
        held = nil
        if recent.count >= 4, let last = recent.last {
            let swing = Self.median(recent.count) { recent[$0].length }
            let interval = Self.median(recent.count - 1) { recent[$0 + 1].time - recent[$0].time }
            if step.length > Self.endingSwingRatio * swing || step.time - last.time > Self.endingIntervalRatio * interval {
                return
            }
        }
        count(step, into: &released)
    }

    /// The median (upper, for an even count) of `count` values; allocation-free, O(count²) for count ≤ 8.
    private static func median(_ count: Int, _ value: (Int) -> Double) -> Double {
        let rank = count / 2
        for i in 0..<count {
            let v = value(i)
            var less = 0
            var lessOrEqual = 0
            for j in 0..<count {
                let w = value(j)
                if w < v { less += 1 }
                if w <= v { lessOrEqual += 1 }
            }
            if less <= rank && rank < lessOrEqual { return v }
        }
        return value(count - 1)
    }

    private mutating func candidate(at time: Double, swing: Double, into released: inout DetectedSteps) {
        let threshold = max(configuration.minimumAmplitude, configuration.relativeAmplitude * amplitude)
        guard swing >= threshold else {
            // Still a real swing: let a walk that follows a big bump pull the amplitude down.
            if swing >= configuration.minimumAmplitude {
                amplitude += (swing - amplitude) * 0.1
                searchAmplitude += (swing - searchAmplitude) * 0.1
            }
            return
        }
        // One candidate may raise the threshold's amplitude by a bounded factor only: a single large swing (the
        // phone put into a pocket or picked up just before walking) must not lift the threshold above the first
        // real steps, while a walk that really is stronger still reaches its amplitude within a few steps.
        amplitude += (min(swing, Self.amplitudeGrowthLimit * amplitude) - amplitude) * 0.3
        searchAmplitude += (swing - searchAmplitude) * 0.3
        lastAcceptedPeakTime = time
        if isWalking {
            let interval = time - lastStepTime
            if interval < configuration.minimumStepInterval { return }
            if interval <= configuration.maximumStepInterval {
                hold(DetectedStep(time: time, length: swing), into: &released)
                return
            }
            resolveHeld(into: &released)
            isWalking = false
            pending.removeAll()
        }
        // A candidate right after the last pending one (within half the shortest step) with at most half its swing
        // is a second peak of the same step (a heel strike's double peak, a wobble of the phone), not a step: it does
        // not join or break the run (its swing has already moved the running amplitudes, as every swing does).
        // Further apart, or of similar swing (shaking), it breaks the run, as below.
        if let last = pending.last, time - last.time < 0.5 * configuration.minimumStepInterval,
            swing * Self.doublePeakSwingRatio <= last.length
        {
            return
        }
        // Keep the longest regular run of pending candidates that the new one continues: an irregular older
        // candidate (a bump before the walk) is dropped without taking the real steps after it along.
        while !pending.isEmpty && !continuesPending(at: time) {
            pending.removeOldest()
        }
        // Until release, a pending candidate keeps its swing (m/s²) in `length`.
        pending.append(DetectedStep(time: time, length: swing))
        if pending.count >= configuration.confirmationSteps {
            dropLeadingHandlingImpulses()
            dropUnevenLeadingCandidates()
            guard pending.count >= configuration.confirmationSteps else { return }
            isWalking = true
            recent.removeAll()
            for candidate in pending { hold(candidate, into: &released) }
            pending.removeAll()
        }
    }

    /// How much one candidate may raise the threshold's running amplitude, as a multiple of it (the update then
    /// moves 30 % of the way towards at most this multiple).
    private static let amplitudeGrowthLimit = 3.0
    /// Before confirmation, a candidate within half the shortest step interval of the last pending one, with at most
    /// 1 / this of its swing, is a second peak of that step.
    private static let doublePeakSwingRatio = 2.0
    /// The swings of the candidates that confirm a walk are within this factor of each other (the first may be
    /// weaker than all the others).
    private static let swingSpreadLimit = 3.0
    /// Before confirmation, the oldest pending candidates whose swing exceeds this multiple of the median swing of
    /// the pending candidates are handling the phone, not steps.
    private static let handlingSwingRatio = 3.0
    /// A step held when the walk ends, with a swing over this multiple of the last steps' median, is the phone being
    /// handled.
    private static let endingSwingRatio = 1.8
    /// A step held when the walk ends, coming over this multiple of the last steps' median interval after the step
    /// before, is the phone being handled.
    private static let endingIntervalRatio = 1.8

    /// Whether a candidate at `time` continues the (non-empty) pending run at a walking rhythm.
    private func continuesPending(at time: Double) -> Bool {
        guard let last = pending.last else { return true }
        let interval = time - last.time
        if interval < configuration.minimumStepInterval || interval > configuration.maximumStepInterval {
            return false
        }
        if pending.count >= 3 {
            // Compare with the interval of the same foot, two steps back: left and right intervals often
            // differ (a phone in a trouser pocket or swinging in one hand sees the two feet differently),
            // but each foot's rhythm is regular.
            let sameFoot = pending[pending.count - 2].time - pending[pending.count - 3].time
            return abs(interval - sameFoot) <= configuration.regularityTolerance * sameFoot
        }
        if pending.count == 2 {
            // Only the other foot's interval is known yet: allow twice the tolerance.
            let previous = last.time - pending[0].time
            return abs(interval - previous) <= 2 * configuration.regularityTolerance * previous
        }
        return true
    }

    /// Steps of one walk have similar swings; handling the phone (putting it into a pocket, picking it up) just
    /// before walking gives a much larger one. Drops the oldest pending candidates while their swing exceeds
    /// ``handlingSwingRatio`` times the median swing of the pending candidates. Only the oldest are judged, so the
    /// growing swings of a walker speeding up are never dropped. At most ``DetectedSteps/capacity``² steps.
    private mutating func dropLeadingHandlingImpulses() {
        while pending.count > 1, pending[0].length > Self.handlingSwingRatio * medianPendingSwing() {
            pending.removeOldest()
        }
    }

    /// A walk's steps have swings of one size: a walker's first step may be weaker than the rest, but handling the
    /// phone before walking (strapping on an armband, settling it in a pocket) gives swings that rise and fall at
    /// a step-like rhythm. Drops the oldest pending candidates until the swings differ at most by
    /// ``swingSpreadLimit``, leaving out a first candidate weaker than all the others (the first step).
    /// Seen on real recordings: an armband strapped on for 10 s before a walk was counted as 10 steps.
    ///
    /// Limits, known: a gait whose two feet differ by more than the limit (none of the real walks came near: trouser
    /// pockets alternate about 2:1) would not be confirmed, and one step over 3 times stronger than the others among
    /// the first ones delays the confirmation until it is the oldest pending candidate. Judging each foot apart was
    /// tried: the armband handling then passed as a walk again.
    private mutating func dropUnevenLeadingCandidates() {
        while pending.count > 1 {
            var smallest = Double.infinity
            var largest = 0.0
            for index in 1..<pending.count {
                smallest = min(smallest, pending[index].length)
                largest = max(largest, pending[index].length)
            }
            if pending[0].length >= smallest {
                smallest = min(smallest, pending[0].length)
                largest = max(largest, pending[0].length)
            }
            if largest <= Self.swingSpreadLimit * smallest { return }
            pending.removeOldest()
        }
    }

    /// The median (upper, for an even count) swing of the pending candidates; allocation-free.
    private func medianPendingSwing() -> Double {
        Self.median(pending.count) { pending[$0].length }
    }

    /// Counts a step whose swing is in `length`: released with its model length.
    private mutating func count(_ step: DetectedStep, into released: inout DetectedSteps) {
        recent.append(step)
        let length = configuration.stepLength.length(accelerationRange: step.length)
        released.append(DetectedStep(time: step.time, length: length))
        steps += 1
        distance += length
    }
}
