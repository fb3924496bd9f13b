/// A walk of one device, as the journal stores and publishes it.
public struct Walk: Sendable, Hashable, Codable {
    /// Unique, stable (a UUID string).
    public var id: String
    public var device: String
    public var name: String?
    /// Seconds since 1970.
    public var started: Double
    /// Seconds since 1970; nil while the walk is on.
    public var stopped: Double?
    /// Metres along the route.
    public var distance: Double
    /// Route points recorded.
    public var routePoints: Int
    /// Photo points reached.
    public var points: Int
    /// Photo points with a photo.
    public var photos: Int

    public init(
        id: String, device: String, name: String?, started: Double, stopped: Double? = nil, distance: Double = 0,
        routePoints: Int = 0, points: Int = 0, photos: Int = 0
    ) {
        self.id = id
        self.device = device
        self.name = name
        self.started = started
        self.stopped = stopped
        self.distance = distance
        self.routePoints = routePoints
        self.points = points
        self.photos = photos
    }

    public var isActive: Bool { stopped == nil }
}

/// What is known of a photo point's photo.
public enum PhotoStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not looked up yet, or the lookup failed and will be retried (`attempts`, `nextAttempt`).
    case pending
    /// A photo was found and cached.
    case found
    /// The services answered, and no photo not already in the walk is near this point.
    case none
}

/// A photo point with its photo, as stored.
public struct WalkPhotoPoint: Sendable, Hashable, Codable {
    public var walk: String
    public var point: PhotoPoint
    public var status: PhotoStatus
    /// The photo, when ``status`` is ``PhotoStatus/found``.
    public var photo: PhotoCandidate?
    /// The cached image's file name (in the journal's cache folder), when found.
    public var cachedFile: String?
    /// Lookups tried so far.
    public var attempts: Int
    /// When the next lookup may run (seconds since 1970), for a pending point.
    public var nextAttempt: Double?
    /// Why the last lookup failed, for a pending point.
    public var lastError: String?

    public init(
        walk: String, point: PhotoPoint, status: PhotoStatus = .pending, photo: PhotoCandidate? = nil, cachedFile: String? = nil,
        attempts: Int = 0, nextAttempt: Double? = nil, lastError: String? = nil
    ) {
        self.walk = walk
        self.point = point
        self.status = status
        self.photo = photo
        self.cachedFile = cachedFile
        self.attempts = attempts
        self.nextAttempt = nextAttempt
        self.lastError = lastError
    }
}
