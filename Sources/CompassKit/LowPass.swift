/// Exponential low-pass filter of a value with a time constant in seconds of sample time.
///
/// Same semantics as ``CircularSmoother`` (they share ``SmoothingStep``): `α = 1 − exp(−dt/τ)`, the
/// first sample sets the filter, equal timestamps are ignored, backwards time or a gap over ``maxGap``
/// resets. Used as ``VectorLowPass`` for gravity and ``ScalarLowPass`` for field strength and dip.
public struct LowPass<Value: LowPassValue>: Sendable, Hashable {
    /// The time constant τ in seconds of sample time; 0 disables filtering.
    public var timeConstant: Double
    /// The longest gap in seconds across which the old state is kept.
    public var maxGap: Double
    /// The filtered value, or `nil` before the first sample.
    public private(set) var value: Value?
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
    public mutating func update(_ sample: Value, at timestamp: Double) -> Value {
        switch SmoothingStep.classify(
            timestamp: timestamp, last: lastTimestamp, timeConstant: timeConstant, maxGap: maxGap)
        {
        case .reset:
            value = sample
            lastTimestamp = timestamp
        case .blend(let alpha):
            value = Value.blend(value ?? sample, toward: sample, weight: alpha)
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

/// A value a ``LowPass`` can filter: one that can be moved part of the way toward another.
public protocol LowPassValue: Sendable, Hashable {
    /// `old + weight · (new − old)`.
    static func blend(_ old: Self, toward new: Self, weight: Double) -> Self
}

extension Double: LowPassValue {
    public static func blend(_ old: Double, toward new: Double, weight: Double) -> Double {
        old + weight * (new - old)
    }
}

extension Vector3: LowPassValue {
    public static func blend(_ old: Vector3, toward new: Vector3, weight: Double) -> Vector3 {
        old + (new - old) * weight
    }
}

/// Exponential low-pass filter of a number (field strength, dip).
public typealias ScalarLowPass = LowPass<Double>

/// Exponential low-pass filter of a 3-vector, for estimating gravity from accelerometer samples.
public typealias VectorLowPass = LowPass<Vector3>
