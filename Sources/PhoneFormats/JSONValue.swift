import Foundation

/// A parsed JSON value (see ``JSONParser``) that keeps integers exact (Sensor Logger times are
/// 19-digit nanoseconds) and tells booleans from numbers.
enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `data`, throwing `body is not JSON: …` with the parser's reason and position.
    static func parse(_ data: Data) throws(PhoneFormatError) -> JSONValue {
        do throws(PhoneFormatError) {
            return try JSONParser.parse(data)
        } catch {
            throw PhoneFormatError("body is not JSON: \(error.reason)")
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
