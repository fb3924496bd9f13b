/// Device ids as the bus accepts them: 1 to 64 characters of `A-Z a-z 0-9 _ -`, and not one of the
/// reserved topic words.
public enum DeviceID {
    /// The longest valid id.
    public static let maximumLength = 64

    /// Topic words a device id may not be (compared case-insensitively by ``sanitized(_:)``).
    public static let reservedNames: Set<String> = ["markers", "services", "errors", "simulation"]

    /// Whether `id` is a valid device id as it stands.
    public static func isValid(_ id: String) -> Bool {
        let scalars = id.unicodeScalars
        guard !scalars.isEmpty, scalars.count <= maximumLength else { return false }
        guard scalars.allSatisfy(isAllowed) else { return false }
        return !reservedNames.contains(id)
    }

    /// Turns any string (a Sensor Logger `deviceId`, an OwnTracks user and device) into a valid id,
    /// deterministically: the same input always gives the same id, nothing random.
    ///
    /// Characters outside `A-Z a-z 0-9 _ -` become `-`, runs of `-` collapse to one, and `-` is trimmed
    /// from both ends. When the result is empty, reserved (case-insensitively), or longer than 64
    /// characters, it keeps a prefix (or `device`) followed by `-` and the 8-hex-digit FNV-1a hash of
    /// the original input's UTF-8, e.g. `markers-1f2e3d4c`. Distinct inputs that differ only in
    /// replaced characters (`a b`, `a/b`) map to the same id.
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
        if reservedNames.contains(cleaned.lowercased()) { return "\(cleaned)-\(hash)" }
        if cleaned.unicodeScalars.count > maximumLength {
            // All kept characters are ASCII, so character and scalar counts agree.
            cleaned = String(cleaned.prefix(maximumLength - hash.count - 1))
            while cleaned.hasSuffix("-") { cleaned.removeLast() }
            return "\(cleaned)-\(hash)"
        }
        return cleaned
    }

    /// The id for an OwnTracks user and device (topic `owntracks/USER/DEVICE`): `USER-DEVICE`, sanitised.
    public static func ownTracks(user: String, device: String) -> String {
        sanitized("\(user)-\(device)")
    }

    /// The 32-bit FNV-1a hash of `text`'s UTF-8, as 8 lowercase hex digits.
    public static func fnv1aHex(_ text: String) -> String {
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
