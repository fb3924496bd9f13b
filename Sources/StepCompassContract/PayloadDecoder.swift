public import Foundation

/// Decodes the contract's JSON payloads with errors a person can act on.
///
/// Rejects oversized payloads, invalid UTF-8 or JSON, non-objects, missing fields, wrong types and
/// non-finite numbers, each with a message that names the field. Unknown fields are ignored, as the
/// contract says.
public struct PayloadDecoder: Sendable {
    /// The largest payload accepted, in bytes.
    public var maximumSize: Int

    public init(maximumSize: Int = 64 * 1024) {
        self.maximumSize = maximumSize
    }

    /// Decodes a payload into `T`.
    /// - Throws: ``InputError`` with the reason.
    public func decode<T: Decodable>(_ type: T.Type, from payload: Data) throws(InputError) -> T {
        guard payload.count <= maximumSize else {
            throw InputError("the payload is \(payload.count) bytes, more than the limit of \(maximumSize)")
        }
        guard !payload.isEmpty else { throw InputError("the payload is empty; expected a JSON object") }
        guard String(data: payload, encoding: .utf8) != nil else { throw InputError("the payload is not valid UTF-8") }
        let first = payload.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        guard first == UInt8(ascii: "{") else { throw InputError("the payload is not a JSON object") }
        do {
            return try JSONDecoder().decode(T.self, from: payload)
        } catch let error as DecodingError {
            throw InputError(Self.describe(error))
        } catch let error as InputError {
            throw error
        } catch {
            throw InputError("the payload is not valid JSON: \(error)")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the payload" : "'\(keys.joined(separator: "."))'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(path(context))"
            return "the field '\(key.stringValue)' is missing\(parent)"
        case .typeMismatch(let type, let context):
            return "\(path(context)) has the wrong type: expected \(Self.name(of: type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) is null: expected \(Self.name(of: type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the payload is not valid JSON" }
            return "\(path(context)) is invalid: \(context.debugDescription)"
        @unknown default:
            return "the payload could not be decoded"
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type, is Int64.Type, is UInt.Type: return "an integer"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default: return "\(type)"
        }
    }
}

/// Checks that a decoded number is finite and in range.
public enum FieldCheck {
    /// - Throws: ``InputError`` when `value` is NaN or infinite, or outside `range`.
    public static func finite(_ value: Double, _ field: String, in range: ClosedRange<Double>? = nil) throws(InputError) -> Double {
        guard value.isFinite else { throw InputError("'\(field)' must be a finite number") }
        if let range, !range.contains(value) {
            throw InputError("'\(field)' is \(value), outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// The contract's range of a location's `altitude`, in metres: the World Magnetic Model's (GeoMagnetism's
    /// `GeodeticPosition.altitudeRange`).
    public static let altitudes: ClosedRange<Double> = -1_000...850_000

    /// A step count (`steps` of `stepcompass/{device}/steps`): a whole number, 0 or more, below 9e15 (exact in a
    /// Double).
    /// - Throws: ``InputError`` for a negative, fractional, non-finite or too large count.
    public static func stepCount(_ steps: Double) throws(InputError) -> Int64 {
        guard steps.isFinite, steps.rounded() == steps else {
            throw InputError("'steps' is \(steps); a count must be a whole number")
        }
        guard steps >= 0 else {
            // Written as an integer when it is one (`-4`); a count below Int64's range as the Double it is (`-1e+20`).
            throw InputError("'steps' is \(Int64(exactly: steps).map { "\($0)" } ?? "\(steps)"); a count cannot be negative")
        }
        guard steps < 9.0e15 else { throw InputError("'steps' is \(steps), too large for a step count") }
        return Int64(steps)
    }
}
