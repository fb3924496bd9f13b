/// A `stepcompass/markers/nearest` request: `{"id", "count"}` or `{"latitude", "longitude", "count"}`, plus
/// `replyTo` and `correlationId` for MQTT 3.1.1 clients. Sent by the dashboard and the client, read by
/// `stepcompass-markers`.
///
/// An `id` may be a string or an integer (the contract's ids are strings; an integer is taken as its text, as the
/// source's numeric ids are). The checks that need the markers (count range, coordinate ranges, whether either
/// `id` or the coordinate is given) are the marker service's; the decoder checks the shape.
public struct NearestRequest: Codable, Sendable, Hashable {
    public var id: String?
    public var latitude: Double?
    public var longitude: Double?
    /// How many markers, 1...50; the service's default (3) when absent.
    public var count: Int?
    /// MQTT 3.1.1 only: the topic of the reply.
    public var replyTo: String?
    public var correlationId: CorrelationID?

    public init(
        id: String? = nil, latitude: Double? = nil, longitude: Double? = nil, count: Int? = nil, replyTo: String? = nil,
        correlationId: CorrelationID? = nil
    ) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.count = count
        self.replyTo = replyTo
        self.correlationId = correlationId
    }

    enum CodingKeys: String, CodingKey {
        case id, latitude, longitude, count, replyTo, correlationId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.id), try !container.decodeNil(forKey: .id) {
            if let text = try? container.decode(String.self, forKey: .id) {
                id = text
            } else if let number = try? container.decode(Int64.self, forKey: .id) {
                id = String(number)
            } else {
                throw DecodingError.typeMismatch(
                    String.self,
                    DecodingError.Context(
                        codingPath: [CodingKeys.id], debugDescription: "'id' must be a string"))
            }
        }
        latitude = try container.decodeIfPresent(Double.self, forKey: .latitude)
        longitude = try container.decodeIfPresent(Double.self, forKey: .longitude)
        count = try container.decodeIfPresent(Int.self, forKey: .count)
        replyTo = try container.decodeIfPresent(String.self, forKey: .replyTo)
        correlationId = try container.decodeIfPresent(CorrelationID.self, forKey: .correlationId)
    }
}
