import StepCompassContract

/// The photo services' dates and GPX's `xsd:dateTime` in UTC, without `DateFormatter`: deterministic, locale-free and
/// safe to use from any thread. The civil-calendar arithmetic (proleptic Gregorian) is the contract's ``Timestamp``'s;
/// the formats differ from the contract's (`yyyy-MM-dd HH:mm:ss` and bare dates are read, a whole second is written
/// without milliseconds), so they are kept here.
enum UTCTime {
    /// Seconds since 1970 of a UTC date and time; nil when a field is out of range.
    static func seconds(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Double? {
        guard (1...9999).contains(year), (1...12).contains(month), (1...Timestamp.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        return Double(Timestamp.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second)
    }

    /// Parses `yyyy-MM-dd HH:mm:ss`, `yyyy-MM-dd'T'HH:mm:ss` or `yyyy-MM-dd` (optionally followed by `Z`) as UTC,
    /// returning seconds since 1970; nil for anything else, including impossible dates such as `0000-00-00`.
    static func parse(_ text: String) -> Double? {
        var bytes = Array(text.trimmingWhitespace().utf8)
        if bytes.last == UInt8(ascii: "Z") { bytes.removeLast() }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes.count == 10 || bytes.count == 19,
            bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10)
        else { return nil }
        if bytes.count == 10 { return seconds(year: year, month: month, day: day) }
        guard bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        return seconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// An xsd:dateTime in UTC, `2024-05-01T10:00:00Z`, with milliseconds (`.250`) only when there is a fraction
    /// once rounded to the millisecond; nil for a time that is not finite or outside the years 1 to 9999.
    static func xsdDateTime(_ time: Double) -> String? {
        guard time.isFinite, time > -62_135_596_800, time < 253_402_300_800 else { return nil }
        let milliseconds = Int64((time * 1000).rounded())
        let seconds = Int(milliseconds.floorDivided(by: 1000))
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Timestamp.civilFromDays(days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if fraction != 0 { text += "." + pad(fraction, 3) }
        return text + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
