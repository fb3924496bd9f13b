/// The marker service's reply to a nearest-markers request: the origin and its nearest markers,
/// ascending by distance, or an error.
public struct NearestReply: Sendable, Hashable, Decodable {
    /// The marker or coordinate the distances are measured from (`id` and `name` null for a coordinate).
    public struct Origin: Sendable, Hashable, Codable {
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
    }

    /// One neighbour, its distance in miles rounded to two decimals by the marker service.
    public struct Neighbour: Sendable, Hashable, Codable {
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
    /// An error reply: `notFound`, `badRequest` or `notReady`.
    public var error: ReportedFailure?
    public var correlationId: String?

    public init(origin: Origin?, nearest: [Neighbour]?, error: ReportedFailure? = nil) {
        self.origin = origin
        self.nearest = nearest
        self.error = error
    }
}
