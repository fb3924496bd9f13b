public import Foundation

extension PositionMessage {
    /// The message as JSON, written by hand, byte for byte what `JSONEncoder` with sorted keys writes.
    ///
    /// The position service publishes one for most step messages it handles, and `JSONEncoder` cost about as much
    /// as everything else the service does for a message. Keys come in sorted order, absent optional fields are left
    /// out (`heading` is `null` instead), numbers use Swift's shortest round-trip form with a whole number's `.0`
    /// dropped, as the encoder writes them. Returns nil when a number is not finite (JSON cannot carry it) or the
    /// timestamp would need escaping: ``encoded()`` then falls back to `JSONEncoder`, which reports or escapes it.
    public func jsonPayload() -> Data? {
        var json = "{"
        json.reserveCapacity(256)
        var first = true
        func key(_ name: String) {
            json += first ? "\"" : ",\""
            first = false
            json += name
            json += "\":"
        }
        func number(_ name: String, _ value: Double?) -> Bool {
            guard let value else { return true }
            guard value.isFinite else { return false }
            key(name)
            Self.appendNumber(value, to: &json)
            return true
        }
        func integer(_ name: String, _ value: Int?) {
            guard let value else { return }
            key(name)
            json += String(value)
        }
        guard number("distance", distance) else { return nil }
        key("heading")
        if let heading {
            guard heading.isFinite else { return nil }
            Self.appendNumber(heading, to: &json)
        } else {
            json += "null"
        }
        guard number("pendingDistance", pendingDistance), number("sessionDistance", sessionDistance) else { return nil }
        integer("sessionSteps", sessionSteps)
        integer("steps", steps)
        if let timestamp {
            guard
                timestamp.utf8.allSatisfy({
                    $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "/")
                })
            else { return nil }
            key("timestamp")
            json += "\""
            json += timestamp
            json += "\""
        }
        integer("updates", updates)
        guard number("x", x), number("y", y) else { return nil }
        json += "}"
        return Data(json.utf8)
    }

    /// Appends a finite number as `JSONEncoder` writes it: the shortest form that reads back the same, without the
    /// `.0` of a whole number.
    private static func appendNumber(_ value: Double, to json: inout String) {
        let text = value.description
        if text.hasSuffix(".0") {
            json += text.dropLast(2)
        } else {
            json += text
        }
    }
}
