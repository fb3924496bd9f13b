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
            self = .number(value)
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
