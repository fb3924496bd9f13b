/// A device's retained `journal` message (published by `stepcompass-journal`): the walk that is on, or null, whether
/// the journal records it and, when not, why.
public struct JournalReport: Sendable, Hashable, Decodable {
    /// When it was published (ISO 8601, UTC).
    public var timestamp: String?
    /// The walk that is on; nil when none is.
    public var walk: WalkReport?
    public var recording: Bool
    /// Why a walk that is on is not recorded (no location permission yet, or a refused one).
    public var reason: String?

    public init(timestamp: String? = nil, walk: WalkReport?, recording: Bool, reason: String? = nil) {
        self.timestamp = timestamp
        self.walk = walk
        self.recording = recording
        self.reason = reason
    }
}

/// A walk as the journal publishes it (in `journal` and in the replies of `journal/walks`).
public struct WalkReport: Sendable, Hashable, Decodable {
    public var id: String
    public var name: String?
    /// When it started and stopped (ISO 8601, UTC); `stopped` is nil while it is on.
    public var started: String?
    public var stopped: String?
    /// Metres along the route.
    public var distance: Double?
    public var routePoints: Int?
    /// Photo points reached, and photos found for them.
    public var points: Int?
    public var photos: Int?

    public init(
        id: String, name: String? = nil, started: String? = nil, stopped: String? = nil, distance: Double? = nil,
        routePoints: Int? = nil, points: Int? = nil, photos: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.started = started
        self.stopped = stopped
        self.distance = distance
        self.routePoints = routePoints
        self.points = points
        self.photos = photos
    }
}

/// A device's `journal/photo` message, and a point of a walk reply: a photo point of a walk with its photo
/// (`found`), none near it (`none`), or not yet (`pending`, with the next try and the last error).
public struct PhotoPointReport: Sendable, Hashable, Decodable {
    public var timestamp: String?
    /// The walk's id.
    public var walk: String
    /// The point's number along the walk (0, 1, …): one every so many metres.
    public var point: Int
    /// Metres along the route.
    public var distance: Double?
    public var latitude: Double?
    public var longitude: Double?
    /// `found`, `none` or `pending`.
    public var status: String
    public var photo: PhotoReport?
    public var retryAt: String?
    public var error: String?

    public init(
        timestamp: String? = nil, walk: String, point: Int, distance: Double? = nil, latitude: Double? = nil,
        longitude: Double? = nil, status: String, photo: PhotoReport? = nil, retryAt: String? = nil, error: String? = nil
    ) {
        self.timestamp = timestamp
        self.walk = walk
        self.point = point
        self.distance = distance
        self.latitude = latitude
        self.longitude = longitude
        self.status = status
        self.photo = photo
        self.retryAt = retryAt
        self.error = error
    }
}

/// A photo with its attribution, as the journal publishes it.
public struct PhotoReport: Sendable, Hashable, Decodable {
    public var id: String?
    /// `wikimedia` or `flickr`.
    public var source: String?
    public var title: String?
    public var author: String?
    public var license: String?
    public var licenseUrl: String?
    /// The photo's page at its source (where the attribution and the full image are).
    public var pageUrl: String?
    /// The cached image as the dashboard serves it: `/journal/photos/{file}`.
    public var imageUrl: String?
    public var width: Int?
    public var height: Int?
    public var latitude: Double?
    public var longitude: Double?
    public var taken: String?

    public init(
        id: String? = nil, source: String? = nil, title: String? = nil, author: String? = nil, license: String? = nil,
        licenseUrl: String? = nil, pageUrl: String? = nil, imageUrl: String? = nil, width: Int? = nil, height: Int? = nil,
        latitude: Double? = nil, longitude: Double? = nil, taken: String? = nil
    ) {
        self.id = id
        self.source = source
        self.title = title
        self.author = author
        self.license = license
        self.licenseUrl = licenseUrl
        self.pageUrl = pageUrl
        self.imageUrl = imageUrl
        self.width = width
        self.height = height
        self.latitude = latitude
        self.longitude = longitude
        self.taken = taken
    }
}

/// A route point of a walk reply.
public struct RoutePointReport: Sendable, Hashable, Codable {
    public var time: String?
    public var latitude: Double
    public var longitude: Double
    public var elevation: Double?
    /// `gps` or `deadReckoning`.
    public var source: String?
    /// Metres along the route.
    public var distance: Double?

    public init(time: String? = nil, latitude: Double, longitude: Double, elevation: Double? = nil, source: String? = nil, distance: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.source = source
        self.distance = distance
    }
}

/// A reply of `stepcompass/journal/walks`: a device's walks (`walks`), one walk (`walk`, `route`, `points`), its GPX
/// (`walk` as the id, `gpx`), or an error (`badRequest`, `notFound`, `unavailable`).
public struct JournalWalksReply: Sendable, Hashable, Decodable {
    public var device: String?
    public var walks: [WalkReport]?
    /// The walk of a walk reply.
    public var walk: WalkReport?
    public var route: [RoutePointReport]?
    public var points: [PhotoPointReport]?
    /// The walk's id of a GPX reply (where `walk` is a string).
    public var walkID: String?
    public var gpx: String?
    public var error: ReportedFailure?

    enum CodingKeys: String, CodingKey { case device, walks, walk, route, points, gpx, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        device = try container.decodeIfPresent(String.self, forKey: .device)
        walks = try container.decodeIfPresent([WalkReport].self, forKey: .walks)
        if let id = try? container.decodeIfPresent(String.self, forKey: .walk) {
            walkID = id
            walk = nil
        } else {
            walk = try container.decodeIfPresent(WalkReport.self, forKey: .walk)
            walkID = walk?.id
        }
        route = try container.decodeIfPresent([RoutePointReport].self, forKey: .route)
        points = try container.decodeIfPresent([PhotoPointReport].self, forKey: .points)
        gpx = try container.decodeIfPresent(String.self, forKey: .gpx)
        error = try container.decodeIfPresent(ReportedFailure.self, forKey: .error)
    }
}
