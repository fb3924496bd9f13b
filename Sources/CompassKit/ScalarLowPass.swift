/// Exponential low-pass filter of a number (field strength, dip), with the semantics of
/// ``VectorLowPass``.
public struct ScalarLowPass: Sendable, Hashable {
    /// The time constant τ in seconds of sample time; 0 disables filtering.
    public var timeConstant: Double
    /// The longest gap in seconds across which the old state is kept.
    public var maxGap: Double
    /// The filtered value, or `nil` before the first sample.
    public private(set) var value: Double?
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
    ///   - sample: The new value.
    ///   - timestamp: Its sample time in seconds.
    /// - Returns: The filtered value.
    @discardableResult
    public mutating func update(_ sample: Double, at timestamp: Double) -> Double {
        switch SmoothingStep.classify(
            timestamp: timestamp, last: lastTimestamp, timeConstant: timeConstant, maxGap: maxGap)
        {
        case .reset:
            value = sample
            lastTimestamp = timestamp
        case .blend(let alpha):
            let old = value ?? sample
            value = old + alpha * (sample - old)
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
