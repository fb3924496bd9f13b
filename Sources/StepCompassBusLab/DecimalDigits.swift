/// Decimal numbers written straight into a byte buffer, without a `String` or an array per number (the load tools'
/// generated bodies and files), and read back from the topics and payloads they receive.
enum DecimalDigits {
    /// Appends `value` in decimal, its digits left-padded with zeros to `width` (a minus sign before them).
    static func append(_ value: Int64, width: Int = 1, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            append(-value, width: width, to: &bytes)
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(0x30 + rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            if count < width { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - count)) }
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// The non-negative decimal number that `bytes` starts with, or nil when it starts with no digit.
    static func leadingNumber(in bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        var digits = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { break }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// The non-negative decimal number right after the first `marker` in `bytes` (12 in `prefix/walk-12/steps`
    /// after `/walk-`), or nil when there is no marker or no digit after it.
    static func number(after marker: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard let range = bytes.firstRange(of: marker) else { return nil }
        return leadingNumber(in: bytes[range.upperBound...])
    }
}
