import CompassKit
import Foundation

/// Reads the common shape of an IMU payload without `JSONDecoder`:
/// `{"timestamp": "...", "accel": [x, y, z], "mag": [x, y, z], "gyro": [x, y, z]}`.
///
/// IMU samples are 50 per second per device, and `JSONDecoder` costs about 5 µs a sample, a sixth of the
/// service's time under load. This accepts only plain ASCII objects with exactly those keys (timestamp and gyro
/// optional), strict JSON numbers and strings without escapes, each key once; for anything else it returns nil and
/// the caller decodes with ``ServiceRuntime/PayloadDecoder``, which then also gives the error message. So a payload
/// it accepts decodes to the same values `JSONDecoder` gives, and every bad payload still gets the usual report.
enum FastIMUPayload {
    /// The sample, or nil when the payload is not in the common shape (not an error by itself).
    /// - Parameters:
    ///   - payload: The message payload.
    ///   - maximumSize: The decoder's size limit: a larger payload is left to the decoder to refuse.
    static func parse(_ payload: Data, maximumSize: Int) -> IMUInput? {
        guard !payload.isEmpty, payload.count <= maximumSize else { return nil }
        return payload.withUnsafeBytes { raw -> IMUInput? in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            return reader.object()
        }
    }

    private struct Reader {
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

        /// A strict JSON number (`-?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?`), finite.
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
            return value.isFinite ? value : nil
        }

        mutating func vector() -> Vector3? {
            guard take(UInt8(ascii: "[")), let x = number(), take(UInt8(ascii: ",")), let y = number(),
                take(UInt8(ascii: ",")), let z = number(), take(UInt8(ascii: "]"))
            else { return nil }
            return Vector3(x, y, z)
        }

        mutating func object() -> IMUInput? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var timestamp: Range<Int>?
            var accel: Vector3?
            var mag: Vector3?
            var gyro: Vector3?
            var first = true
            while true {
                if first, take(UInt8(ascii: "}")) { break }
                guard first || take(UInt8(ascii: ",")) else {
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
                first = false
                guard let key = string(), take(UInt8(ascii: ":")) else { return nil }
                if equals(key, "timestamp"), timestamp == nil {
                    guard let value = string() else { return nil }
                    timestamp = value
                } else if equals(key, "accel"), accel == nil {
                    guard let value = vector() else { return nil }
                    accel = value
                } else if equals(key, "mag"), mag == nil {
                    guard let value = vector() else { return nil }
                    mag = value
                } else if equals(key, "gyro"), gyro == nil {
                    guard let value = vector() else { return nil }
                    gyro = value
                } else {
                    return nil  // another key, or one seen twice: the decoder's business
                }
            }
            skipSpace()
            guard index == bytes.count, let accel, let mag else { return nil }
            let text = timestamp.map { range in
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            return IMUInput(timestamp: text, accel: accel, mag: mag, gyro: gyro)
        }
    }
}
