/// The contract's timestamps (`2026-11-22T10:15:30.250Z`), written and read without a formatter: the load tool
/// stamps 50,000 samples and reads 10,000 headings a second.
enum LoadTimestamp {
    /// Formats Unix seconds as ISO 8601 UTC with milliseconds.
    static func format(_ seconds: Double) -> [UInt8] {
        let milliseconds = Int((seconds * 1_000).rounded(.down))
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let ofDay = milliseconds - days * 86_400_000
        let (year, month, day) = civil(days: days)
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        func put(_ value: Int, _ width: Int) {
            var digits = [UInt8](repeating: 0x30, count: width)
            var rest = value
            for index in stride(from: width - 1, through: 0, by: -1) {
                digits[index] = UInt8(0x30 + rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: digits)
        }
        put(year, 4)
        bytes.append(UInt8(ascii: "-"))
        put(month, 2)
        bytes.append(UInt8(ascii: "-"))
        put(day, 2)
        bytes.append(UInt8(ascii: "T"))
        put(ofDay / 3_600_000, 2)
        bytes.append(UInt8(ascii: ":"))
        put(ofDay / 60_000 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        put(ofDay / 1_000 % 60, 2)
        bytes.append(UInt8(ascii: "."))
        put(ofDay % 1_000, 3)
        bytes.append(UInt8(ascii: "Z"))
        return bytes
    }

    /// Reads the `timestamp` field of a heading payload (exactly the shape ``format(_:)`` writes, which is what the
    /// compass service publishes), wherever it is in the object; nil for anything else.
    static func parse(field payload: some Collection<UInt8>) -> Double? {
        // The encoder does not keep the keys in order: search the whole payload.
        let key = Array(#""timestamp":""#.utf8)
        let bytes = Array(payload)
        guard bytes.count >= key.count,
            let start = (0...(bytes.count - key.count)).first(where: { offset in
                bytes[offset] == key[0] && bytes[offset..<(offset + key.count)].elementsEqual(key)
            })
        else { return nil }
        let text = start + key.count
        guard bytes.count >= text + 24, bytes[text + 23] == UInt8(ascii: "Z") else { return nil }
        func number(_ offset: Int, _ width: Int) -> Int? {
            var value = 0
            for index in (text + offset)..<(text + offset + width) {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), let millisecond = number(20, 3)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + Double(millisecond) / 1_000
    }

    /// Year, month, day of a day count from 1970-01-01 (Hinnant's `civil_from_days`).
    static func civil(days: Int) -> (Int, Int, Int) {
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

    /// Days from 1970-01-01 (Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
