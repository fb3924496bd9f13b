/// The `correlationId` of an MQTT 3.1.1 request (`markers/nearest`, `activity/history`): a JSON string, number or
/// boolean, kept as received so the reply echoes it exactly.
public enum CorrelationID: Codable, Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            // A whole number in Int64's range is that integer: written back (`7777777777777778000`) it reads as one, and
            // a reply's correlationId must read back as what it is written as (found by FuzzCommands: a request's
            // 7777777777777777777.777777777 was echoed as 7.777777777777778e+18, which reads back as an integer).
            self = Int64(exactly: value).map(CorrelationID.integer) ?? .number(value)
        } else {
            throw DecodingError.typeMismatch(
                CorrelationID.self,
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "expected a string or a number")
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
