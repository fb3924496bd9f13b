import Foundation

/// What an exponential filter does with one new sample, from the sample-time gap since the last.
///
/// Shared by every filter here so that they agree on the contract's semantics: the time constant
/// τ is in seconds of *sample* time (timestamps, not arrival time), the weight of a new sample is
/// `α = 1 − exp(−dt/τ)` so that the result does not depend on the sample rate, and a device's
/// first sample sets the filter.
enum SmoothingStep: Equatable {
    /// Start again from this sample: first sample, clock gone backwards, or a gap too long for
    /// the old state to mean anything.
    case reset
    /// Blend the sample in with this weight in (0, 1]; 0 < dt, or dt = 0 with τ = 0.
    case blend(Double)
    /// Keep the state: a sample with the same timestamp as the last carries no sample time.
    case hold

    /// Classifies a sample.
    /// - Parameters:
    ///   - timestamp: The new sample's time in seconds.
    ///   - last: The previous sample's time, `nil` before the first.
    ///   - timeConstant: τ in seconds; 0 or less disables smoothing.
    ///   - maxGap: Gaps longer than this (seconds) reset the filter.
    static func classify(timestamp: Double, last: Double?, timeConstant: Double, maxGap: Double) -> SmoothingStep {
        guard let last else { return .reset }
        let dt = timestamp - last
        if !(dt >= 0) || dt > maxGap { return .reset }
        if timeConstant <= 0 { return .blend(1) }
        if dt == 0 { return .hold }
        return .blend(-expm1(-dt / timeConstant))
    }
}
