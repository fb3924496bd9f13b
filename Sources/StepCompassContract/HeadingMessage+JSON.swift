public import Foundation

extension HeadingMessage {
    /// The message as JSON, written by hand in the contract's field order.
    ///
    /// Headings go out at up to `--max-rate` per device (10,000 a second for 1,000 devices), and `JSONEncoder`
    /// costs about 10 µs a message. The strings (an ISO timestamp and enumeration values) are written as they are when
    /// they are printable ASCII without characters to escape, and numbers use Swift's shortest round-trip form, so the
    /// payload reads back to the same values as the encoder's. Returns nil when a number is not finite, which JSON
    /// cannot carry, or a string would need escaping; the caller then falls back to `JSONEncoder`, which reports or
    /// escapes it. Each field is appended to one buffer, checked as it goes.
    public func jsonPayload() -> Data? {
        var json = ""
        json.reserveCapacity(448)
        guard Self.append("{\"timestamp\":", text: timestamp, to: &json),
            Self.append(",\"status\":", text: status, to: &json),
            Self.append(",\"heading\":", number: heading, to: &json),
            Self.append(",\"north\":", text: north, to: &json),
            Self.append(",\"magneticHeading\":", number: magneticHeading, to: &json),
            Self.append(",\"trueHeading\":", number: trueHeading, to: &json),
            Self.append(",\"declination\":", number: declination, to: &json),
            Self.append(",\"cardinal\":", text: cardinal, to: &json),
            Self.append(",\"accuracy\":", number: accuracy, to: &json),
            Self.append(",\"pitch\":", number: pitch, to: &json),
            Self.append(",\"roll\":", number: roll, to: &json),
            Self.append(",\"calibration\":", text: calibration, to: &json)
        else { return nil }
        json += ",\"interference\":"
        json += interference.map { $0 ? "true" : "false" } ?? "null"
        guard Self.append(",\"fieldStrength\":", number: fieldStrength, to: &json),
            Self.append(",\"walkingDirection\":", number: walkingDirection, to: &json)
        else { return nil }
        json += "}"
        return Data(json.utf8)
    }

    /// Appends `key` and a number (`null` when nil); false for a number that is not finite.
    private static func append(_ key: String, number value: Double?, to json: inout String) -> Bool {
        json += key
        guard let value else {
            json += "null"
            return true
        }
        guard value.isFinite else { return false }
        json += value.description
        return true
    }

    /// Appends `key` and a string between quotes (`null` when nil); false for a string that would need escaping (not
    /// printable ASCII, or a `"` or `\`).
    private static func append(_ key: String, text value: String?, to json: inout String) -> Bool {
        json += key
        guard let value else {
            json += "null"
            return true
        }
        guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return false }
        json += "\""
        json += value
        json += "\""
        return true
    }
}
