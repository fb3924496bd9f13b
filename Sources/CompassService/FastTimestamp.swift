import Foundation

/// Parses the contract's exact timestamp shape, `YYYY-MM-DDTHH:MM:SS(.fff)Z`, without a formatter.
///
/// IMU samples arrive at 50 Hz per device, and a Foundation format style costs several
/// microseconds per parse; this handles the common shape in well under one and returns nil for
/// anything else, which then goes to the general ``ServiceRuntime/Timestamp`` parser.
enum FastTimestamp {
    static func parse(_ text: String) -> Date? {
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
                (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
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

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 (Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
