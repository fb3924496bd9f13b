/// Reads an HTTP `Retry-After` header (RFC 9110 §10.2.3).
public enum RetryAfter {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays: Set<String> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// The seconds to wait from `now` (seconds since 1970), never negative, for a delta-seconds value (`120`) or an
    /// IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`); nil for anything else (including the obsolete RFC 850 and
    /// asctime date forms, negative or fractional numbers).
    public static func seconds(_ header: String, now: Double) -> Double? {
        let text = header.trimmingWhitespace()
        guard !text.isEmpty else { return nil }
        if allDigits(text) {
            return Double(text)
        }
        guard let date = imfFixdate(text) else { return nil }
        return max(0, date - now)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` as seconds since 1970.
    private static func imfFixdate(_ text: String) -> Double? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), weekdays.contains(String(parts[0].dropLast())),
            parts[1].count == 2, allDigits(parts[1]), let day = Int(parts[1]),
            let monthIndex = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, allDigits(parts[3]), let year = Int(parts[3]),
            parts[5] == "GMT"
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard parts[4].count == 8, clock.count == 3, clock.allSatisfy({ $0.count == 2 && allDigits($0) }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2])
        else { return nil }
        return UTCTime.seconds(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second)
    }

    private static func allDigits(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
