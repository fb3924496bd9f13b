public import Foundation

/// The contract's timestamps: ISO 8601 UTC with milliseconds, e.g. `2026-11-22T10:15:30.250Z`.
public enum Timestamp {
    /// Formats a date as the contract requires.
    public static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// Parses an ISO 8601 timestamp with or without fractional seconds; nil when it is not one.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).parse(text) {
            return date
        }
        return try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text)
    }
}
