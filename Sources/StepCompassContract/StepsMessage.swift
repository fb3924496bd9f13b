public import Foundation

/// The payload of `stepcompass/{device}/steps`: `{"steps", "timestamp"?, "source"?, "distance"?}`, the cumulative
/// count of the device's session. Written by the simulator and the bridge, read by the position, activity and journal
/// services, the bridge's step detector, the dashboard and the client.
///
/// `steps` is kept as the number received, so that each reader checks it where and how it always has
/// (``count()`` gives the reason for `2.5` or `-4`); a value that is not a number is reported as expecting an integer.
/// `source` and `distance` are read leniently: a value of the wrong type counts as absent, so a message whose count is
/// fine is never rejected for them.
public struct StepsMessage: Sendable, Hashable, Codable {
    /// The cumulative count as received (a whole number, 0 or more, when valid).
    public var steps: Double
    /// When the count was taken (ISO 8601); the receiver uses its receive time when absent.
    public var timestamp: String?
    /// Where the count comes from: `pedometer` or `detector` (the bridge's), absent when the publisher does not say.
    public var source: String?
    /// Metres walked in the session, when the source knows it.
    public var distance: Double?

    public init(steps: Int, timestamp: String? = nil, source: String? = nil, distance: Double? = nil) {
        self.steps = Double(steps)
        self.timestamp = timestamp
        self.source = source
        self.distance = distance
    }

    /// Reads a payload: the common shape by hand (``parseFast(_:maximumSize:)``), anything else with `decoder`, which
    /// also gives the error message.
    /// - Throws: ``InputError`` saying what is wrong.
    public static func decode(_ payload: Data, using decoder: PayloadDecoder) throws(InputError) -> StepsMessage {
        if let fast = parseFast(payload, maximumSize: decoder.maximumSize) { return fast }
        return try decoder.decode(StepsMessage.self, from: payload)
    }

    /// Reads the common shape without `JSONDecoder`, or returns nil (not an error by itself).
    ///
    /// Every step count of every device reaches the position, activity and journal services, and `JSONDecoder` costs
    /// a few microseconds a message. This accepts only plain ASCII objects with no other keys than `steps` (a number),
    /// `timestamp` and `source` (strings without escapes) and `distance` (a number), each once, `steps` required; for
    /// anything else (including a `distance` that is not a number, which the decoder reads as absent) it returns nil
    /// and ``decode(_:using:)`` hands the payload to the decoder. So a payload it accepts decodes to the values
    /// `JSONDecoder` gives, and every bad payload gets the usual report.
    /// - Parameters:
    ///   - payload: The message payload.
    ///   - maximumSize: The decoder's size limit: a larger payload is left to the decoder to refuse.
    public static func parseFast(_ payload: Data, maximumSize: Int) -> StepsMessage? {
        guard !payload.isEmpty, payload.count <= maximumSize else { return nil }
        return payload.withUnsafeBytes { raw -> StepsMessage? in
            var reader = FastJSONReader(bytes: raw.bindMemory(to: UInt8.self))
            return reader.stepsObject()
        }
    }

    /// The count as an integer.
    /// - Throws: ``InputError`` for a negative, fractional, non-finite or too large count.
    public func count() throws(InputError) -> Int64 {
        try FieldCheck.stepCount(steps)
    }

    /// The count when it is a whole number that fits an `Int` (negative counts included), else nil.
    public var wholeSteps: Int? { Int(exactly: steps) }

    /// The reported distance when it is usable: finite and not negative.
    public var reportedDistance: Double? {
        guard let distance, distance.isFinite, distance >= 0 else { return nil }
        return distance
    }

    private enum CodingKeys: String, CodingKey {
        case steps, timestamp, source, distance
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        do {
            steps = try container.decode(Double.self, forKey: .steps)
        } catch DecodingError.typeMismatch(_, let context) {
            throw DecodingError.typeMismatch(Int.self, context)  // the contract's count is an integer
        } catch DecodingError.valueNotFound(_, let context) {
            throw DecodingError.valueNotFound(Int.self, context)
        }
        timestamp = try container.decodeIfPresent(String.self, forKey: .timestamp)
        source = (try? container.decodeIfPresent(String.self, forKey: .source)) ?? nil
        distance = (try? container.decodeIfPresent(Double.self, forKey: .distance)) ?? nil
    }

    /// Writes the count as an integer when it is one, and only the optional fields that are present.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let whole = Int64(exactly: steps) {
            try container.encode(whole, forKey: .steps)
        } else {
            try container.encode(steps, forKey: .steps)
        }
        try container.encodeIfPresent(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encodeIfPresent(distance, forKey: .distance)
    }

    /// The message as JSON text, written by hand as the bridge has always written it:
    /// `{"timestamp", "steps", "source", "distance"?}` (absent fields left out, a non-finite distance too), numbers
    /// unrounded.
    public var json: String {
        var fields: [String] = []
        if let timestamp { fields.append(#""timestamp":"\#(timestamp)""#) }
        fields.append(#""steps":\#(Int64(exactly: steps).map { "\($0)" } ?? "\(steps)")"#)
        if let source { fields.append(#""source":"\#(source)""#) }
        if let distance, distance.isFinite { fields.append(#""distance":\#(distance)"#) }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

extension FastJSONReader {
    /// A steps object: `steps`, optionally `timestamp`, `source` and `distance`, each once; nil for anything else.
    mutating func stepsObject() -> StepsMessage? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var steps: Double?
        var timestamp: Range<Int>?
        var source: Range<Int>?
        var distance: Double?
        var first = true
        while true {
            guard let member = nextMember(first: &first) else { return nil }
            guard case .key(let key) = member else { break }
            if equals(key, "steps"), steps == nil {
                guard let value = number() else { return nil }
                steps = value
            } else if equals(key, "timestamp"), timestamp == nil {
                guard let value = string() else { return nil }
                timestamp = value
            } else if equals(key, "source"), source == nil {
                guard let value = string() else { return nil }
                source = value
            } else if equals(key, "distance"), distance == nil {
                guard let value = number() else { return nil }
                distance = value
            } else {
                return nil  // another key, or one seen twice: the decoder's business
            }
        }
        skipSpace()
        guard index == bytes.count, let steps else { return nil }
        var message = StepsMessage(
            steps: 0, timestamp: timestamp.map(text), source: source.map(text), distance: distance)
        message.steps = steps
        return message
    }
}
