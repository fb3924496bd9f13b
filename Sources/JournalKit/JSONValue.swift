/// A parsed JSON value, read leniently: services send the same field as a number one day and as a string the next.
///
/// Internal to the photo-search parsers; decoded with `JSONDecoder` so no Foundation bridging is involved.
enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
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
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The member `key` of an object; nil for a missing member or a value that is not an object.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The members of an object.
    var object: [String: JSONValue]? {
        if case .object(let members) = self { members } else { nil }
    }

    /// The elements of an array.
    var array: [JSONValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// A string, or a number written without a needless `.0` (`2777191844`, not `2777191844.0`).
    var string: String? {
        switch self {
        case .string(let text):
            return text
        case .number(let value):
            if value.isFinite, value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
                return String(Int64(value))
            }
            return value.isFinite ? String(value) : nil
        default:
            return nil
        }
    }

    /// A string with surrounding whitespace removed, nil when that leaves nothing.
    var nonEmptyString: String? {
        guard let text = string?.trimmingWhitespace(), !text.isEmpty else { return nil }
        return text
    }

    /// A finite number, or a string holding one.
    var double: Double? {
        switch self {
        case .number(let value):
            return value.isFinite ? value : nil
        case .string(let text):
            guard let value = Double(text.trimmingWhitespace()), value.isFinite else { return nil }
            return value
        default:
            return nil
        }
    }

    /// A whole number, or a string holding one (`"640"`, `"640.0"`).
    var int: Int? {
        switch self {
        case .string(let text):
            let trimmed = text.trimmingWhitespace()
            if let value = Int(trimmed) { return value }
            guard let value = Double(trimmed) else { return nil }
            return Self.exactInt(value)
        case .number(let value):
            return Self.exactInt(value)
        default:
            return nil
        }
    }

    private static func exactInt(_ value: Double) -> Int? {
        guard value.isFinite, value == value.rounded(), abs(value) < 9_007_199_254_740_992 else { return nil }
        return Int(value)
    }
}
