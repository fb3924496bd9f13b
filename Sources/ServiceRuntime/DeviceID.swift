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
}
