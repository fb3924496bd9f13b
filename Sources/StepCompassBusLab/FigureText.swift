import Foundation

/// How the load tools write durations in their reports: one place for the unit and for a figure that is missing.
enum FigureText {
    /// `seconds` in milliseconds with `decimals` decimals ("12 ms"), or `missing` when it is not finite.
    static func milliseconds(_ seconds: Double, decimals: Int = 0, missing: String = "n/a") -> String {
        seconds.isFinite ? String(format: "%.\(decimals)f ms", seconds * 1_000) : missing
    }

    /// `seconds` in microseconds with one decimal ("58.3 µs"), or "n/a" when it is absent or not finite.
    static func microseconds(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "n/a" }
        return String(format: "%.1f µs", seconds * 1_000_000)
    }
}
