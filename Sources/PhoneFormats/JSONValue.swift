import Foundation

/// A parsed JSON value that keeps integers exact (Sensor Logger times are 19-digit nanoseconds)
/// and tells booleans from numbers.
enum JSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unsupported JSON value (a number out of range?)")
        }
    }

    /// Parses `data`, throwing `body is not JSON: …` with the parser's reason.
    static func parse(_ data: Data) throws(PhoneFormatError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let error as DecodingError {
            throw PhoneFormatError("body is not JSON: \(error.oneLineReason)")
        } catch {
            throw PhoneFormatError("body is not JSON: \(error)")
        }
    }

    var object: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as a number; numeric strings count too when `lenient` (Sensor Logger's JSON export
    /// writes numbers as strings).
    func double(lenient: Bool = false) -> Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        case .string(let text) where lenient: Double(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// A short name of the value's type for error messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension DecodingError {
    /// The parser's reason on one line, including the underlying error's description when there is one.
    var oneLineReason: String {
        let context: Context? = switch self {
        case .dataCorrupted(let context): context
        case .keyNotFound(_, let context): context
        case .typeMismatch(_, let context): context
        case .valueNotFound(_, let context): context
        @unknown default: nil
        }
        guard let context else { return "\(self)" }
        var reason = context.debugDescription
        if let underlying = context.underlyingError {
            reason += " (\(underlying))"
        }
        return reason
    }
}

/// Looks up a numeric field and explains what is wrong with it.
enum FieldLookup {
    case missing
    case notNumber(String)
    case notFinite
    case value(Double)

    init(_ value: JSONValue?, lenient: Bool) {
        guard let value, value != .null else {
            self = .missing
            return
        }
        guard let number = value.double(lenient: lenient) else {
            self = .notNumber(value.kindName)
            return
        }
        self = number.isFinite ? .value(number) : .notFinite
    }

    init(text: String?, decimalComma: Bool = false) {
        guard var text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            self = .missing
            return
        }
        if decimalComma { text = text.replacingOccurrences(of: ",", with: ".") }
        guard let number = Double(text) else {
            self = .notNumber("\"\(text.prefix(20))\"")
            return
        }
        self = number.isFinite ? .value(number) : .notFinite
    }

    /// The value, or the reason it is unusable, naming the field as `label`.
    func required(_ label: String) throws(PhoneFormatError) -> Double {
        switch self {
        case .missing: throw PhoneFormatError("\(label) is missing")
        case .notNumber(let kind): throw PhoneFormatError("\(label) is not a number (\(kind))")
        case .notFinite: throw PhoneFormatError("\(label) is not finite")
        case .value(let value): return value
        }
    }

    /// The value when present; a present but unusable value is still an error.
    func optional(_ label: String) throws(PhoneFormatError) -> Double? {
        if case .missing = self { return nil }
        return try required(label)
    }
}
