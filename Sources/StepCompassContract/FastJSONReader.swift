import Foundation

/// A reader of the common shape of the contract's hot payloads (IMU samples, step counts) without `JSONDecoder`: plain
/// ASCII JSON, strict numbers, strings without escapes. Each reader method returns nil for anything else, and the
/// payload then goes to the decoder, which reads it or gives the usual report.
///
/// The IMU and steps readers walk their object member by member with ``nextMember(first:)`` and read each value
/// themselves: a shared walk taking a closure per key made the IMU reader 1.8x slower (535 ns to 960 ns a payload,
/// `stepcompass-buslab codec-bench`, release); this one has no closure.
struct FastJSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// What ``nextMember(first:)`` found.
    enum Member {
        /// A member's key (its `:` taken): read its value next.
        case key(Range<Int>)
        /// The object's closing brace.
        case end
    }

    /// The next member of an object whose `{` was taken: its key, or ``Member/end`` at the `}`; nil for anything else.
    /// - Parameter first: Whether no member was read yet (a comma comes before every other); the call clears it.
    mutating func nextMember(first: inout Bool) -> Member? {
        if first, take(UInt8(ascii: "}")) { return .end }
        if !first, !take(UInt8(ascii: ",")) {
            return take(UInt8(ascii: "}")) ? .end : nil
        }
        first = false
        guard let key = string(), take(UInt8(ascii: ":")) else { return nil }
        return .key(key)
    }

    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A string without escapes, of printable ASCII; its byte range.
    mutating func string() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return start..<(index - 1)
            }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for offset in 0..<range.count where bytes[range.lowerBound + offset] != expected[offset] { return false }
        return true
    }

    /// A strict JSON number (`-?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?`), finite; a zero only without an exponent.
    mutating func number() -> Double? {
        skipSpace()
        let start = index
        func digit() -> Bool { index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 }
        func digits() -> Bool {
            guard digit() else { return false }
            while digit() { index += 1 }
            return true
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == 0x30 {
            index += 1
        } else if !digits() {
            return nil
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return nil }
        }
        let significandEnd = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() else { return nil }
        }
        let length = index - start
        guard length > 0, length < 64 else { return nil }
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> Double in
            for offset in 0..<length { buffer[offset] = CChar(bitPattern: bytes[start + offset]) }
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        // A zero with an exponent is JSONDecoder's to judge: it refuses a number too small for a Double (`1e-400`,
        // which reads as 0 here) and, in swift-foundation's check for a true zero, `0e1` to `0e9` (but not `0e10`).
        guard value.isFinite, value != 0 || significandEnd == index else { return nil }
        return value
    }

    mutating func vector() -> SIMD3<Double>? {
        guard take(UInt8(ascii: "[")), let x = number(), take(UInt8(ascii: ",")), let y = number(),
            take(UInt8(ascii: ",")), let z = number(), take(UInt8(ascii: "]"))
        else { return nil }
        return SIMD3(x, y, z)
    }

    /// The text of a string's byte range (as ``string()`` gave it).
    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
