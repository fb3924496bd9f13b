/// Starts and stops walks by themselves from the step counter: the first steps after a rest start a walk, and a
/// rest while a walk is on stops it (at the last step).
public struct AutoWalkDetector: Sendable {
    /// What to do with the walk.
    public enum Decision: Sendable, Equatable {
        /// Nothing.
        case none
        /// Start a walk at this time, in seconds since 1970.
        case start(at: Double)
        /// Stop the walk that is on at this time, in seconds since 1970 (the last step, not the moment of deciding).
        case stop(at: Double)
    }

    /// Seconds without a step that count as a rest (default 300, five minutes).
    public let rest: Double
    /// When the step count last went up, in seconds since 1970; nil before any step.
    public private(set) var lastStep: Double?

    /// A detector that takes `rest` seconds without a step as a rest.
    public init(rest: Double = 300) {
        self.rest = rest
    }

    /// The device's step count went up at `time` (seconds since 1970); `walking`: whether a walk is on.
    ///
    /// With no walk on, steps after a rest of at least ``rest`` seconds (or the first steps ever seen) start one at
    /// `time`. Steps arriving late (before ``lastStep``) never move ``lastStep`` back.
    public mutating func stepped(at time: Double, walking: Bool) -> Decision {
        let previous = lastStep
        lastStep = max(previous ?? time, time)
        guard !walking else { return .none }
        if let previous, time - previous < rest { return .none }
        return .start(at: time)
    }

    /// The clock is at `now` (seconds since 1970); `walkStarted`: when the walk that is on started (nil: no walk on).
    ///
    /// Stops the walk at the last step (or at its start, when no step came since) once ``rest`` seconds have passed
    /// without a step.
    public func check(now: Double, walkStarted: Double?) -> Decision {
        guard let walkStarted else { return .none }
        let since = max(lastStep ?? walkStarted, walkStarted)
        return now - since >= rest ? .stop(at: since) : .none
    }
}
