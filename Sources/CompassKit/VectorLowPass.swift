/// Exponential low-pass filter of a 3-vector, for estimating gravity from accelerometer samples.
///
/// Same semantics as ``CircularSmoother``: τ in seconds of sample time, `α = 1 − exp(−dt/τ)`,
/// first sample sets the filter, equal timestamps are ignored, backwards time or a gap over
/// ``maxGap`` resets.
public struct VectorLowPass: Sendable, Hashable {
    /// The time constant τ in seconds of sample time; 0 disables filtering.
    public var timeConstant: Double
    /// The longest gap in seconds across which the old state is kept.
    public var maxGap: Double
    /// The filtered vector, or `nil` before the first sample.
    public private(set) var value: Vector3?
    private var lastTimestamp: Double?

    /// Creates an empty filter.
    /// - Parameters:
    ///   - timeConstant: τ in seconds of sample time.
    ///   - maxGap: Gaps longer than this many seconds reset the filter.
    public init(timeConstant: Double, maxGap: Double = 5) {
        self.timeConstant = timeConstant
        self.maxGap = maxGap
    }

    /// Adds a sample.
    /// - Parameters:
    ///   - sample: The new vector.
    ///   - timestamp: Its sample time in seconds.
    /// - Returns: The filtered vector.
    @discardableResult
    public mutating func update(_ sample: Vector3, at timestamp: Double) -> Vector3 {
        switch SmoothingStep.classify(
            timestamp: timestamp, last: lastTimestamp, timeConstant: timeConstant, maxGap: maxGap)
        {
        case .reset:
            value = sample
            lastTimestamp = timestamp
        case .blend(let alpha):
            let old = value ?? sample
            value = old + (sample - old) * alpha
            lastTimestamp = timestamp
        case .hold:
            break
        }
        return value ?? sample
    }

    /// Forgets all state.
    public mutating func reset() {
        value = nil
        lastTimestamp = nil
    }
}
