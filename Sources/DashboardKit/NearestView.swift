public import StepCompassContract

/// A marker's nearest neighbours as the page lists them: names and distances in miles with two
/// decimals, ascending, as the marker service ordered them.
public struct NearestView: Sendable, Hashable, Codable {
    /// The marker asked about (nil id and name for a coordinate).
    public var originID: String?
    public var originName: String?
    /// `Nearest to Marienplatz`.
    public var title: String
    public var items: [Item]
    /// The marker service's error, in words.
    public var errorText: String?
    /// The error's code (`notFound`, `badRequest`, `notReady`), for the HTTP status.
    public var errorCode: String?

    public struct Item: Sendable, Hashable, Codable {
        public var id: String
        public var name: String
        public var distanceMiles: Double
        /// `1.23 mi`.
        public var distanceText: String
    }

    public init(reply: NearestReply) {
        originID = reply.origin?.id
        originName = reply.origin?.name
        if let origin = reply.origin {
            title = "Nearest to \(origin.name ?? DisplayText.coordinate(latitude: origin.latitude, longitude: origin.longitude))"
        } else {
            title = "Nearest markers"
        }
        items = (reply.nearest ?? []).map {
            Item(id: $0.id, name: $0.name, distanceMiles: $0.distanceMiles, distanceText: DisplayText.miles($0.distanceMiles))
        }
        errorText = reply.error?.message
        errorCode = reply.error?.code
    }
}
