import Foundation

/// Exponential smoothing of headings, done on unit vectors rather than angles.
///
/// Averaging angles breaks at north (the mean of 359° and 1° would be 180°); averaging the unit
/// vectors (cos θ, sin θ) has no such seam. The state vector is deliberately not renormalised:
/// its length ``resultantLength`` is the exponentially weighted mean resultant length of recent
/// headings, so `1 − R` is their circular variance, a cheap measure of heading noise.
///
/// Semantics (shared with ``VectorLowPass``): τ is in seconds of sample time and a sample's weight
/// is `α = 1 − exp(−dt/τ)`; the first sample sets the filter; a sample with the same timestamp is
/// ignored; a timestamp going backwards or a gap over ``maxGap`` resets the filter to the new
/// sample.
public struct CircularSmoother: Sendable, Hashable {
    /// The time constant τ in seconds of sample time; 0 disables smoothing.
    public var timeConstant: Double
    /// The longest gap in seconds across which the old state is kept; longer gaps reset.
    public var maxGap: Double
    private var cosine = 0.0
    private var sine = 0.0
    private var lastTimestamp: Double?

    /// Creates an empty smoother.
    /// - Parameters:
    ///   - timeConstant: τ in seconds of sample time (the contract's default is 0.25 s).
    ///   - maxGap: Gaps longer than this many seconds reset the filter.
    public init(timeConstant: Double, maxGap: Double = 5) {
        self.timeConstant = timeConstant
        self.maxGap = maxGap
    }

    /// The smoothed heading in degrees, [0, 360), or `nil` before the first sample.
    public var value: Double? {
        guard lastTimestamp != nil else { return nil }
        return Angle.normalized(Angle.degrees(atan2(sine, cosine)))
    }

    /// The length of the smoothed vector in 0...1: 1 when recent headings agree, smaller when
    /// they scatter.
    public var resultantLength: Double { min(1, (cosine * cosine + sine * sine).squareRoot()) }

    /// The circular variance `1 − R` of recent headings, in 0...1.
    public var circularVariance: Double { 1 - resultantLength }

    /// The circular standard deviation `√(−2 ln R)` of recent headings, in degrees (180 when R is 0).
    public var circularStandardDeviation: Double {
        let r = resultantLength
        guard r > 1e-12 else { return 180 }
        return min(180, Angle.degrees(max(0, -2 * log(r)).squareRoot()))
    }

    /// Adds a heading.
    /// - Parameters:
    ///   - degrees: The heading in degrees.
    ///   - timestamp: Its sample time in seconds.
    /// - Returns: The smoothed heading in [0, 360).
    @discardableResult
    public mutating func update(_ degrees: Double, at timestamp: Double) -> Double {
        let radians = Angle.radians(degrees)
        return update(east: sin(radians), north: cos(radians), at: timestamp)
    }

    /// Adds a heading given as its unit direction, which avoids trigonometry when the caller
    /// already has it (``Orientation/headingEast`` and ``Orientation/headingNorth``).
    /// - Parameters:
    ///   - east: The east component (sine of the heading).
    ///   - north: The north component (cosine of the heading).
    ///   - timestamp: The sample time in seconds.
    /// - Returns: The smoothed heading in [0, 360).
    @discardableResult
    public mutating func update(east: Double, north: Double, at timestamp: Double) -> Double {
        switch SmoothingStep.classify(
            timestamp: timestamp, last: lastTimestamp, timeConstant: timeConstant, maxGap: maxGap)
        {
        case .reset:
            cosine = north
            sine = east
            lastTimestamp = timestamp
        case .blend(let alpha):
            let newCosine = cosine + alpha * (north - cosine)
            let newSine = sine + alpha * (east - sine)
            // Two exactly opposite inputs can cancel; keep the last direction rather than NaN.
            if newCosine * newCosine + newSine * newSine > 1e-24 {
                cosine = newCosine
                sine = newSine
            }
            lastTimestamp = timestamp
        case .hold:
            break
        }
        return value ?? 0
    }

    /// Forgets all state; the next sample sets the filter.
    public mutating func reset() {
        cosine = 0
        sine = 0
        lastTimestamp = nil
    }
}
