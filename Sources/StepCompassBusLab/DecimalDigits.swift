/// Decimal numbers written straight into a byte buffer, without a `String` or an array per number (the load tools'
/// generated bodies and files).
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
}
