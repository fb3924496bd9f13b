/// A device's retained `stepcompass/{device}/journal`: the walk that is on (null when none), whether the journal
/// records it and, when not, why. Written by `stepcompass-journal`, read by the dashboard and the client.
public struct JournalMessage: Codable, Sendable, Hashable {
    /// When the journal published it (ISO 8601, UTC).
    public var timestamp: String?
    /// The walk that is on; nil when none is.
    public var walk: JournalWalk?
    /// True only while a walk is on and the device's `location` permission is `authorized`.
    public var recording: Bool
    /// Why a walk that is on is not recorded (no location permission yet, or a refused one); null otherwise.
    public var reason: String?

    public init(timestamp: String? = nil, walk: JournalWalk?, recording: Bool, reason: String? = nil) {
        self.timestamp = timestamp
        self.walk = walk
        self.recording = recording
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey { case timestamp, walk, recording, reason }

    /// Every field, null when absent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(walk, forKey: .walk)
        try container.encode(recording, forKey: .recording)
        try container.encode(reason, forKey: .reason)
    }
}

/// A walk as the journal publishes it, in `{device}/journal` and in the replies of `journal/walks`. The journal
/// writes every field (`name` and `stopped` null when none); a reader needs only `id`.
public struct JournalWalk: Codable, Sendable, Hashable {
    /// A lowercase UUID.
    public var id: String
    /// The name given with the start command; nil when none.
    public var name: String?
    /// When it started (ISO 8601, UTC).
    public var started: String?
    /// When it stopped (ISO 8601, UTC); nil while it is on.
    public var stopped: String?
    /// The route's length in metres (one decimal).
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

    enum CodingKeys: String, CodingKey { case id, name, started, stopped, distance, routePoints, points, photos }

    /// Every field, null when absent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(started, forKey: .started)
        try container.encode(stopped, forKey: .stopped)
        try container.encode(distance, forKey: .distance)
        try container.encode(routePoints, forKey: .routePoints)
        try container.encode(points, forKey: .points)
        try container.encode(photos, forKey: .photos)
    }
}

/// A device's `stepcompass/{device}/journal/photo` message, and a point of a walk reply: the `point`-th photo point
/// of a walk with its photo (`found`), none near it (`none`), or not yet (`pending`, with the next try `retryAt` and
/// the last `error`). Written by `stepcompass-journal`, read by the dashboard.
public struct JournalPhotoPoint: Codable, Sendable, Hashable {
    /// The time of the fix or position that reached it (ISO 8601, UTC).
    public var timestamp: String?
    /// The walk's id.
    public var walk: String
    /// The point's number along the walk: one every so many metres.
    public var point: Int
    /// Metres along the route.
    public var distance: Double?
    public var latitude: Double?
    public var longitude: Double?
    /// `found`, `none` or `pending`.
    public var status: String
    /// The photo of a `found` point; null otherwise.
    public var photo: JournalPhoto?
    /// A `pending` point's next try (left out otherwise).
    public var retryAt: String?
    /// A `pending` point's last failure (left out otherwise).
    public var error: String?

    public init(
        timestamp: String? = nil, walk: String, point: Int, distance: Double? = nil, latitude: Double? = nil,
        longitude: Double? = nil, status: String, photo: JournalPhoto? = nil, retryAt: String? = nil, error: String? = nil
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

    enum CodingKeys: String, CodingKey { case timestamp, walk, point, distance, latitude, longitude, status, photo, retryAt, error }

    /// Every field but `retryAt` and `error`, null when absent; those two are left out when absent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(walk, forKey: .walk)
        try container.encode(point, forKey: .point)
        try container.encode(distance, forKey: .distance)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encode(status, forKey: .status)
        try container.encode(photo, forKey: .photo)
        try container.encodeIfPresent(retryAt, forKey: .retryAt)
        try container.encodeIfPresent(error, forKey: .error)
    }
}

/// A public photo and its attribution (show `author`, `license` and a link to `pageUrl` with it), as the journal
/// publishes it. The journal always writes `id`, `source`, `title`, `license`, `pageUrl` and `imageUrl`, and leaves
/// out the others when the photo service does not say.
public struct JournalPhoto: Codable, Sendable, Hashable {
    /// `wikimedia:<pageid>` or `flickr:<id>`.
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
    /// Where it was taken.
    public var latitude: Double?
    public var longitude: Double?
    /// When it was taken (ISO 8601, UTC).
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
