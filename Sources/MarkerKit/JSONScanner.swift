/// A minimal pull parser over UTF-8 JSON bytes, just enough for GeoJSON markers.
///
/// MarkerKit has its own parser for two reasons. Foundation's `JSONSerialization` and
/// `JSONDecoder` turn a numeric id into a `Double`/`NSNumber`, losing the literal text the
/// contract requires (`5` must become `"5"`, and `5.0` stays `"5.0"`). And pulling only the
/// members a marker needs, skipping the rest without building a tree, ingests a 25,000-feature
/// document in a few milliseconds.
///
/// It is strict RFC 8259 except for two documented leniencies that turn whole-file failures
/// into per-feature rejections: a leading UTF-8 byte order mark is skipped, and the bare
/// tokens `NaN`, `Infinity` and `-Infinity` (written by Python's `json.dumps`) are read as
/// non-finite numbers, which the decoder then rejects feature by feature. Invalid UTF-8 inside
/// strings is repaired to U+FFFD rather than failing the document.
struct JSONScanner {
    /// The kind of the next value, decided from its first byte.
    enum ValueKind {
        case object, array, string, number, literalTrue, literalFalse, literalNull
    }

    /// The bytes of a string token between its quotes, still escaped if `hasEscape`.
    struct StringToken {
        var start: Int
        var end: Int
        var hasEscape: Bool
    }

    /// A number token: its literal bytes and its value.
    struct NumberToken {
        var start: Int
        var end: Int
        var value: Double
    }

    let base: UnsafePointer<UInt8>
    let count: Int
    var position: Int = 0

    /// Objects and arrays nested deeper than this are refused, so a hostile document cannot
    /// exhaust the stack of the skipping recursion.
    static let maximumDepth = 128

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    // MARK: - Errors

    func fail(_ detail: String, at offset: Int? = nil) -> MarkerDecodingError {
        let offset = offset ?? position
        if offset >= count {
            return .invalidJSON(offset: count, "unexpected end of input")
        }
        return .invalidJSON(offset: offset, detail)
    }

    private func describeByte(at offset: Int) -> String {
        guard offset < count else { return "end of input" }
        let byte = base[offset]
        if byte >= 0x20 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        return "byte 0x\(String(byte, radix: 16))"
    }

    // MARK: - Structure

    mutating func skipByteOrderMark() {
        if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF {
            position = 3
        }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < count {
            switch base[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// True when only white space remains.
    mutating func atEnd() -> Bool {
        skipWhitespace()
        return position >= count
    }

    /// The kind of the next value, without consuming it.
    mutating func peekKind() throws(MarkerDecodingError) -> ValueKind {
        skipWhitespace()
        guard position < count else { throw fail("expected a value") }
        switch base[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "N"), UInt8(ascii: "I"):
            return .number
        case UInt8(ascii: "t"): return .literalTrue
        case UInt8(ascii: "f"): return .literalFalse
        case UInt8(ascii: "n"): return .literalNull
        default: throw fail("expected a value, found \(describeByte(at: position))")
        }
    }

    @inline(__always)
    mutating func expect(_ byte: UInt8) throws(MarkerDecodingError) {
        skipWhitespace()
        guard position < count, base[position] == byte else {
            throw fail("expected '\(Character(Unicode.Scalar(byte)))', found \(describeByte(at: position))")
        }
        position += 1
    }

    /// Consumes `{` and reports whether the object is empty (`{}` consumed entirely).
    mutating func beginObject() throws(MarkerDecodingError) -> Bool {
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if position < count && base[position] == UInt8(ascii: "}") {
            position += 1
            return false
        }
        return true
    }

    /// Reads a member name and its colon.
    mutating func memberName() throws(MarkerDecodingError) -> StringToken {
        skipWhitespace()
        guard position < count, base[position] == UInt8(ascii: "\"") else {
            throw fail("expected a member name, found \(describeByte(at: position))")
        }
        let token = try string()
        try expect(UInt8(ascii: ":"))
        return token
    }

    /// After a member or element: true on `,` (another follows), false on `closer`.
    mutating func next(closer: UInt8) throws(MarkerDecodingError) -> Bool {
        skipWhitespace()
        guard position < count else { throw fail("unexpected end of input") }
        let byte = base[position]
        if byte == UInt8(ascii: ",") {
            position += 1
            return true
        }
        if byte == closer {
            position += 1
            return false
        }
        throw fail("expected ',' or '\(Character(Unicode.Scalar(closer)))', found \(describeByte(at: position))")
    }

    /// Consumes `[` and reports whether the array has elements (`[]` consumed entirely).
    mutating func beginArray() throws(MarkerDecodingError) -> Bool {
        try expect(UInt8(ascii: "["))
        skipWhitespace()
        if position < count && base[position] == UInt8(ascii: "]") {
            position += 1
            return false
        }
        return true
    }

    // MARK: - Strings

    /// Scans a string token starting at its opening quote, validating escapes.
    mutating func string() throws(MarkerDecodingError) -> StringToken {
        skipWhitespace()
        guard position < count, base[position] == UInt8(ascii: "\"") else {
            throw fail("expected a string, found \(describeByte(at: position))")
        }
        position += 1
        let start = position
        var hasEscape = false
        while position < count {
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                let token = StringToken(start: start, end: position, hasEscape: hasEscape)
                position += 1
                return token
            }
            if byte == UInt8(ascii: "\\") {
                hasEscape = true
                position += 1
                guard position < count else { break }
                switch base[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"),
                    UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    position += 1
                    for _ in 0..<4 {
                        guard position < count else { throw fail("unexpected end of input") }
                        guard JSONScanner.hexValue(base[position]) != nil else {
                            throw fail("invalid \\u escape")
                        }
                        position += 1
                    }
                default:
                    throw fail("invalid escape \\\(describeByte(at: position))")
                }
                continue
            }
            if byte < 0x20 {
                throw fail("unescaped control character in string")
            }
            position += 1
        }
        throw fail("unterminated string", at: count)
    }

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// The decoded text of a string token (already validated by ``string()``).
    func text(of token: StringToken) -> String {
        let raw = UnsafeBufferPointer(start: base + token.start, count: token.end - token.start)
        guard token.hasEscape else {
            return String(decoding: raw, as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var i = 0
        func appendScalar(_ value: UInt32) {
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            UTF8.encode(scalar) { bytes.append($0) }
        }
        func hex4(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for k in 0..<4 { value = value << 4 | (JSONScanner.hexValue(raw[at + k]) ?? 0) }
            return value
        }
        while i < raw.count {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                i += 1
                continue
            }
            let escaped = raw[i + 1]
            i += 2
            switch escaped {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                let unit = hex4(i)
                i += 4
                if unit >= 0xD800 && unit < 0xDC00,
                    i + 6 <= raw.count, raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u")
                {
                    let low = hex4(i + 2)
                    if low >= 0xDC00 && low < 0xE000 {
                        i += 6
                        appendScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                        continue
                    }
                }
                appendScalar(unit)  // a lone surrogate becomes U+FFFD
            default: bytes.append(escaped)  // \" \\ \/
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a string token is exactly `literal` (compared after unescaping).
    func token(_ token: StringToken, equals literal: StaticString) -> Bool {
        let length = token.end - token.start
        if !token.hasEscape {
            guard length == literal.utf8CodeUnitCount else { return false }
            let a = base + token.start
            let b = literal.utf8Start
            for i in 0..<length where a[i] != b[i] { return false }
            return true
        }
        let decoded = text(of: token)
        return decoded.utf8.elementsEqual(
            UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// The raw bytes of a token as text, e.g. a number's literal spelling.
    func literalText(start: Int, end: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
    }

    // MARK: - Numbers

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Scans a number token (RFC 8259 grammar, plus `NaN`/`Infinity`/`-Infinity`).
    mutating func number() throws(MarkerDecodingError) -> NumberToken {
        skipWhitespace()
        let start = position
        var negative = false
        if position < count && base[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        guard position < count else { throw fail("unexpected end of input") }
        if let special = try nonFiniteLiteral(negative: negative) {
            return NumberToken(start: start, end: position, value: special)
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var decimalExponent = 0
        var exact = true

        @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

        // Integer part: 0 | [1-9][0-9]*
        let first = base[position]
        guard isDigit(first) else { throw fail("invalid number") }
        if first == UInt8(ascii: "0") {
            position += 1
            if position < count && isDigit(base[position]) {
                throw fail("leading zero in number")
            }
        } else {
            while position < count, isDigit(base[position]) {
                let digit = UInt64(base[position] &- UInt8(ascii: "0"))
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ digit
                    significantDigits += 1
                } else {
                    decimalExponent += 1
                    if digit != 0 { exact = false }
                }
                position += 1
            }
        }
        // Fraction
        if position < count && base[position] == UInt8(ascii: ".") {
            position += 1
            guard position < count, isDigit(base[position]) else { throw fail("digit expected after '.'") }
            while position < count, isDigit(base[position]) {
                let digit = UInt64(base[position] &- UInt8(ascii: "0"))
                if mantissa == 0 && digit == 0 {
                    decimalExponent -= 1
                } else if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ digit
                    significantDigits += 1
                    decimalExponent -= 1
                } else if digit != 0 {
                    exact = false
                }
                position += 1
            }
        }
        // Exponent
        if position < count && (base[position] | 0x20) == UInt8(ascii: "e") {
            position += 1
            var exponentNegative = false
            if position < count && (base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-")) {
                exponentNegative = base[position] == UInt8(ascii: "-")
                position += 1
            }
            guard position < count, isDigit(base[position]) else { throw fail("digit expected in exponent") }
            var exponent = 0
            while position < count, isDigit(base[position]) {
                if exponent < 100_000 {
                    exponent = exponent * 10 + Int(base[position] &- UInt8(ascii: "0"))
                }
                position += 1
            }
            decimalExponent += exponentNegative ? -exponent : exponent
        }
        let end = position
        // Clinger's fast path: both operands exact in a Double, one correctly rounded operation.
        if exact && mantissa < (1 << 53) && decimalExponent >= -22 && decimalExponent <= 22 {
            var value = Double(mantissa)
            if decimalExponent < 0 {
                value /= JSONScanner.powersOfTen[-decimalExponent]
            } else {
                value *= JSONScanner.powersOfTen[decimalExponent]
            }
            return NumberToken(start: start, end: end, value: negative ? -value : value)
        }
        // Slow path: the standard library's correctly rounded conversion (overflow gives ±inf).
        let value = Double(literalText(start: start, end: end)) ?? .nan
        return NumberToken(start: start, end: end, value: value)
    }

    private mutating func nonFiniteLiteral(negative: Bool) throws(MarkerDecodingError) -> Double? {
        if matchLiteral("Infinity") { return negative ? -.infinity : .infinity }
        if !negative && matchLiteral("NaN") { return .nan }
        let byte = base[position]
        if byte == UInt8(ascii: "I") || byte == UInt8(ascii: "N") { throw fail("invalid literal") }
        return nil
    }

    private mutating func matchLiteral(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard position + length <= count else { return false }
        let bytes = literal.utf8Start
        for i in 0..<length where base[position + i] != bytes[i] { return false }
        position += length
        return true
    }

    /// Consumes `true`, `false` or `null`.
    mutating func literal() throws(MarkerDecodingError) {
        skipWhitespace()
        if matchLiteral("true") || matchLiteral("false") || matchLiteral("null") { return }
        throw fail("invalid literal")
    }

    // MARK: - Skipping

    /// Validates and skips one value of any kind.
    mutating func skipValue(depth: Int = 0) throws(MarkerDecodingError) {
        switch try peekKind() {
        case .string:
            _ = try string()
        case .number:
            _ = try number()
        case .literalTrue, .literalFalse, .literalNull:
            try literal()
        case .object:
            guard depth < JSONScanner.maximumDepth else { throw fail("nesting too deep") }
            if try beginObject() {
                repeat {
                    _ = try memberName()
                    try skipValue(depth: depth + 1)
                } while try next(closer: UInt8(ascii: "}"))
            }
        case .array:
            guard depth < JSONScanner.maximumDepth else { throw fail("nesting too deep") }
            if try beginArray() {
                repeat {
                    try skipValue(depth: depth + 1)
                } while try next(closer: UInt8(ascii: "]"))
            }
        }
    }

    /// Consumes `null` if it is next; the caller then knows the member was JSON null.
    mutating func consumeNull() -> Bool {
        skipWhitespace()
        return matchLiteral("null")
    }
}
