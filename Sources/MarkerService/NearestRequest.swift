import ServiceRuntime

/// A `stepcompass/markers/nearest` request: `{"id", "count"}` or `{"latitude", "longitude",
/// "count"}`, plus `replyTo` and `correlationId` for MQTT 3.1.1 clients.
///
/// An `id` may be a string or an integer (the contract's ids are strings; an integer is taken
/// as its text, as the source's numeric ids are). Checks that need the index (count range,
/// coordinate ranges) are MarkerKit's; the shape checks are here.
struct NearestRequest: Decodable, Sendable {
    var id: String?
    var latitude: Double?
    var longitude: Double?
    var count: Int?
    var replyTo: String?
    var correlationId: CorrelationID?

    enum CodingKeys: String, CodingKey {
        case id, latitude, longitude, count, replyTo, correlationId
    }

    init(from decoder: any Decoder) throws {
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

    /// What the request asks for, once its shape is checked.
    enum Query: Sendable, Equatable {
        case marker(id: String, count: Int)
        case coordinate(latitude: Double, longitude: Double, count: Int)
    }

    /// The query, or a reason for a `badRequest` reply.
    func query(defaultCount: Int) -> Result<Query, NearestFailure> {
        let count = self.count ?? defaultCount
        switch (id, latitude, longitude) {
        case (let id?, nil, nil):
            return .success(.marker(id: id, count: count))
        case (nil, let latitude?, let longitude?):
            return .success(.coordinate(latitude: latitude, longitude: longitude, count: count))
        case (_?, _, _):
            return .failure(.badRequest("give either 'id' or 'latitude' and 'longitude', not both"))
        case (nil, _?, nil), (nil, nil, _?):
            return .failure(.badRequest("'latitude' and 'longitude' must be given together"))
        case (nil, nil, nil):
            return .failure(.badRequest("the request needs 'id' or 'latitude' and 'longitude'"))
        }
    }
}

/// A request that got an error reply: the contract's `notFound`, `badRequest` or `notReady`.
struct NearestFailure: Error, Sendable, Equatable {
    var code: String
    var message: String

    static func badRequest(_ message: String) -> NearestFailure { NearestFailure(code: "badRequest", message: message) }
    static func notReady(_ message: String) -> NearestFailure { NearestFailure(code: "notReady", message: message) }
}
