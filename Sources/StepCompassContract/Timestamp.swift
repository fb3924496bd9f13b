public import Foundation

/// The contract's timestamps: ISO 8601 UTC with milliseconds, e.g. `2026-11-22T10:15:30.250Z`. The one codec of
/// the project.
///
/// The common shape is formatted and parsed by hand, without a formatter: a Foundation format style costs
/// several microseconds per call, and IMU samples and headings arrive at 50 Hz per device (50,000 a second in
/// the compass load test). Anything else goes to Foundation's ISO 8601 parser.
public enum Timestamp {
    /// Parses an ISO 8601 timestamp with or without fractional seconds; nil when it is not one.
    public static func parse(_ text: String) -> Date? {
        if let date = parseContractShape(text) { return date }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt).parse(text) {
            return date
        }
        return try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text)
    }

    /// Formats Unix time in seconds (a phone's clock, which counts in nanoseconds: half a microsecond is added so
    /// that a time such as `…00.010`, held by a Double as `…00.0099999`, keeps its millisecond).
    /// - Parameter seconds: Seconds since 1970.
    public static func format(secondsSince1970 seconds: Double) -> String {
        format(Date(timeIntervalSince1970: seconds + 0.000_000_5))
    }

    /// Parses a timestamp into Unix time in seconds.
    /// - Parameter text: An ISO 8601 timestamp.
    public static func secondsSince1970(_ text: String) -> Double? {
        parse(text)?.timeIntervalSince1970
    }

    /// Formats with Foundation's ISO 8601 style: the reference that ``format(_:)`` agrees with.
    public static func formatWithFoundation(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// The first year the hand-written codec reads and writes. Its calendar is the proleptic Gregorian one, while
    /// Foundation's, the reference, is the Julian calendar before the reform of October 1582: earlier dates are left
    /// to Foundation, so that every text means the same instant whichever parser reads it.
    static let firstGregorianYear = 1_583

    /// Parses the contract's exact shape, `YYYY-MM-DDTHH:MM:SS(.fff)Z` from ``firstGregorianYear``; nil for anything
    /// else.
    static func parseContractShape(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count >= 20, bytes.count <= 30 else { return nil }
            func digits(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<(start + count) {
                    let byte = bytes[index]
                    guard byte >= 0x30, byte <= 0x39 else { return nil }
                    value = value * 10 + Int(byte - 0x30)
                }
                return value
            }
            guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                bytes[bytes.count - 1] == UInt8(ascii: "Z"),
                let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
                let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
                (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61,
                year >= firstGregorianYear
            else { return nil }
            var fraction = 0.0
            if bytes.count > 20 {
                guard bytes[19] == UInt8(ascii: "."), bytes.count > 21 else { return nil }
                let count = bytes.count - 21
                guard let value = digits(20, count) else { return nil }
                fraction = Double(value) / pow(10, Double(count))
            }
            guard day <= daysIn(month: month, year: year) else { return nil }
            let days = daysFromCivil(year: year, month: month, day: day)
            let seconds = Double(days) * 86_400 + Double(hour * 3_600 + minute * 60 + second) + fraction
            return Date(timeIntervalSince1970: seconds)
        }
    }

    /// Formats a date as `YYYY-MM-DDTHH:MM:SS.fffZ` (UTC, milliseconds truncated), exactly as
    /// ``formatWithFoundation(_:)`` does, in a fraction of its time (a heading or IMU message is stamped up to
    /// 50,000 times a second); dates before ``firstGregorianYear`` or after 9999 are Foundation's to write.
    public static func format(_ date: Date) -> String {
        // Whole seconds, then the truncated milliseconds of the remainder, as Foundation does (multiplying the
        // whole time by 1,000 rounds differently for a few instants).
        let time = date.timeIntervalSince1970
        let seconds = time.rounded(.down)
        guard seconds.magnitude < 1e12 else { return formatWithFoundation(date) }
        let fraction = min(999, Int(((time - seconds) * 1_000).rounded(.down)))
        let whole = Int(seconds)
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let ofDay = (whole - days * 86_400) * 1_000 + fraction
        let (year, month, day) = civilFromDays(days)
        guard (firstGregorianYear...9_999).contains(year) else { return formatWithFoundation(date) }
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(0x30 + rest % 10)
                    rest /= 10
                }
            }
            put(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(ofDay / 3_600_000, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(ofDay / 60_000 % 60, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(ofDay / 1_000 % 60, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(ofDay % 1_000, 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// Year, month and day of a day count from 1970-01-01 (Hinnant's `civil_from_days`).
    package static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days in a month of a year (proleptic Gregorian).
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 (Hinnant's `days_from_civil`).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
