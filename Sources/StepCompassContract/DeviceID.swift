/// The contract's device ids: 1 to 64 characters of `A-Z a-z 0-9 _ -`, not a reserved name.
public enum DeviceID {
    /// Names that are topic levels of the contract and so cannot be devices.
    public static let reserved: Set<String> = ["markers", "services", "errors", "simulation"]

    /// Checks a device id.
    /// - Throws: ``InputError`` saying what is wrong with it.
    public static func validate(_ id: String) throws(InputError) {
        guard !id.isEmpty else { throw InputError("the device id is empty") }
        guard id.utf8.count <= 64 else { throw InputError("the device id '\(id.prefix(70))' is longer than 64 characters") }
        let allowed = id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard allowed else { throw InputError("the device id '\(id)' may only contain A-Z, a-z, 0-9, '_' and '-'") }
        guard !reserved.contains(id) else { throw InputError("'\(id)' is a reserved name, not a device id") }
    }

    /// Whether a device id is valid.
    public static func isValid(_ id: String) -> Bool {
        (try? validate(id)) != nil
    }

    /// Makes any text (a phone's own id or name, an OwnTracks user and device) a valid device id, always the same
    /// for the same text: other characters become `-`, runs of `-` collapse and the ends are trimmed; a result that
    /// is empty, reserved (in any case) or longer than 64 characters keeps a prefix and gets an 8-digit FNV-1a hash
    /// of the whole text.
    /// - Parameter raw: Any text.
    /// - Returns: A valid device id.
    public static func sanitized(_ raw: String) -> String {
        var scalars: [Unicode.Scalar] = []
        for scalar in raw.unicodeScalars {
            let next: Unicode.Scalar = isAllowed(scalar) ? scalar : "-"
            if next == "-", scalars.last == "-" { continue }
            scalars.append(next)
        }
        while scalars.first == "-" { scalars.removeFirst() }
        while scalars.last == "-" { scalars.removeLast() }
        var cleaned = String(String.UnicodeScalarView(scalars))
        let hash = fnv1aHex(raw)
        if cleaned.isEmpty { return "device-\(hash)" }
        if reserved.contains(cleaned.lowercased()) { return "\(cleaned)-\(hash)" }
        if cleaned.unicodeScalars.count > 64 {
            // Every kept character is ASCII, so characters and scalars count the same.
            cleaned = String(cleaned.prefix(64 - hash.count - 1))
            while cleaned.hasSuffix("-") { cleaned.removeLast() }
            return "\(cleaned)-\(hash)"
        }
        return cleaned
    }

    /// The 32-bit FNV-1a hash of the text's UTF-8 bytes, as 8 hexadecimal digits.
    package static func fnv1aHex(_ text: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }
}
