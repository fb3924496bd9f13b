/// A reply to a `stepcompass/markers/nearest` request: the origin and its nearest markers, ascending by distance,
/// or an error (`notFound`, `badRequest`, `notReady`). Written by `stepcompass-markers` (an error reply as
/// ``ErrorReply``), read by the dashboard and the client.
///
/// The service's answer has `origin` and `nearest`; an error reply has `error` instead.
public struct NearestReply: Codable, Sendable, Hashable {
    /// The marker or coordinate the distances are measured from (`id` and `name` null for a coordinate).
    public struct Origin: Codable, Sendable, Hashable {
        public var id: String?
        public var name: String?
        public var latitude: Double
        public var longitude: Double

        public init(id: String?, name: String?, latitude: Double, longitude: Double) {
            self.id = id
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
        }

        enum CodingKeys: String, CodingKey { case id, name, latitude, longitude }

        /// `id` and `name` are written as null for a coordinate.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(latitude, forKey: .latitude)
            try container.encode(longitude, forKey: .longitude)
        }
    }

    /// A neighbour in a reply or a `nearby` message: `{"id", "name", "latitude", "longitude", "distanceMiles"}`, the
    /// distance rounded to two decimals by the marker service.
    public struct Neighbour: Codable, Sendable, Hashable {
        public var id: String
        public var name: String
        public var latitude: Double
        public var longitude: Double
        public var distanceMiles: Double

        public init(id: String, name: String, latitude: Double, longitude: Double, distanceMiles: Double) {
            self.id = id
            self.name = name
            self.latitude = latitude
            self.longitude = longitude
            self.distanceMiles = distanceMiles
        }
    }

    public var origin: Origin?
    public var nearest: [Neighbour]?
    /// An error reply's error.
    public var error: ErrorReply.Body?
    /// Echoed only when the request carried one.
    public var correlationId: CorrelationID?

    public init(origin: Origin?, nearest: [Neighbour]?, error: ErrorReply.Body? = nil, correlationId: CorrelationID? = nil) {
        self.origin = origin
        self.nearest = nearest
        self.error = error
        self.correlationId = correlationId
    }
}

/// A `stepcompass/{device}/nearby` message: the markers nearest the device's last location. Written by
/// `stepcompass-markers`.
public struct NearbyMessage: Codable, Sendable, Hashable {
    public var timestamp: String
    public var nearest: [NearestReply.Neighbour]

    public init(timestamp: String, nearest: [NearestReply.Neighbour]) {
        self.timestamp = timestamp
        self.nearest = nearest
    }
}
