import MarkerKit
import ServiceRuntime

/// A neighbour in a reply or a `nearby` message: `{"id", "name", "latitude", "longitude",
/// "distanceMiles"}`, the distance rounded to two decimals.
struct NeighbourPayload: Encodable, Sendable {
    var id: String
    var name: String
    var latitude: Double
    var longitude: Double
    var distanceMiles: Double

    init(_ result: NearestResult) {
        id = result.marker.id
        name = result.marker.name
        latitude = result.marker.latitude
        longitude = result.marker.longitude
        distanceMiles = result.roundedMiles
    }
}

/// The reply to a nearest request.
struct NearestReply: Encodable, Sendable {
    /// The point asked about; `id` and `name` null for a coordinate query.
    struct Origin: Encodable, Sendable {
        var id: String?
        var name: String?
        var latitude: Double
        var longitude: Double

        enum CodingKeys: String, CodingKey { case id, name, latitude, longitude }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(latitude, forKey: .latitude)
            try container.encode(longitude, forKey: .longitude)
        }
    }

    var origin: Origin
    var nearest: [NeighbourPayload]
    /// Echoed only when the request carried one.
    var correlationId: CorrelationID?
}

/// A `stepcompass/{device}/nearby` message.
struct NearbyPayload: Encodable, Sendable {
    var timestamp: String
    var nearest: [NeighbourPayload]
}
