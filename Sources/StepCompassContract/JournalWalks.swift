/// A `stepcompass/journal/walks` request: a device's walks (no `walk`; newest first, at most `limit`), one walk with
/// its route and photo points (`format` `json`, the default), or its GPX (`format` `gpx`); plus `replyTo` and
/// `correlationId` for MQTT 3.1.1 clients. Sent by the dashboard and the client, read by `stepcompass-journal`
/// (which checks the values).
public struct WalksRequest: Codable, Sendable, Hashable {
    public var device: String
    /// A walk id of the device; without it, the list of its walks.
    public var walk: String?
    /// `json` (the default) or `gpx`.
    public var format: String?
    /// How many walks at most, 1...500 (default 50).
    public var limit: Int?
    /// MQTT 3.1.1 only: the topic of the reply.
    public var replyTo: String?
    public var correlationId: CorrelationID?

    public init(
        device: String, walk: String? = nil, format: String? = nil, limit: Int? = nil, replyTo: String? = nil,
        correlationId: CorrelationID? = nil
    ) {
        self.device = device
        self.walk = walk
        self.format = format
        self.limit = limit
        self.replyTo = replyTo
        self.correlationId = correlationId
    }
}

/// A reply of `stepcompass/journal/walks`: a device's walks (``walks(device:walks:correlationId:)``), one walk with
/// its route and photo points (``walk(device:walk:route:points:correlationId:)``), its GPX
/// (``gpx(device:walk:gpx:correlationId:)``, where `walk` is the id), or an error (`badRequest`, `notFound`,
/// `unavailable`; written as ``ErrorReply``). Written by `stepcompass-journal`, read by the dashboard and the client.
public struct WalksReply: Codable, Sendable, Hashable {
    public var device: String?
    /// The walks of a list reply, newest first.
    public var walks: [JournalWalk]?
    /// The walk of a walk reply.
    public var walk: JournalWalk?
    /// The walk's route of a walk reply, in time order.
    public var route: [JournalRoutePoint]?
    /// The photo points of a walk reply, in order.
    public var points: [JournalPhotoPoint]?
    /// The walk's id: of the walk of a walk reply, or of a GPX reply (where `walk` is a string).
    public var walkID: String?
    /// The GPX 1.1 document of a GPX reply.
    public var gpx: String?
    /// An error reply's error.
    public var error: ErrorReply.Body?
    /// Echoed only when the request carried one.
    public var correlationId: CorrelationID?

    public init(
        device: String? = nil, walks: [JournalWalk]? = nil, walk: JournalWalk? = nil, route: [JournalRoutePoint]? = nil,
        points: [JournalPhotoPoint]? = nil, walkID: String? = nil, gpx: String? = nil, error: ErrorReply.Body? = nil,
        correlationId: CorrelationID? = nil
    ) {
        self.device = device
        self.walks = walks
        self.walk = walk
        self.route = route
        self.points = points
        self.walkID = walkID ?? walk?.id
        self.gpx = gpx
        self.error = error
        self.correlationId = correlationId
    }

    /// A device's walks: `{"device", "walks", "correlationId"?}`.
    public static func walks(device: String, walks: [JournalWalk], correlationId: CorrelationID?) -> WalksReply {
        WalksReply(device: device, walks: walks, correlationId: correlationId)
    }

    /// One walk: `{"device", "walk", "route", "points", "correlationId"?}`.
    public static func walk(
        device: String, walk: JournalWalk, route: [JournalRoutePoint], points: [JournalPhotoPoint], correlationId: CorrelationID?
    ) -> WalksReply {
        WalksReply(device: device, walk: walk, route: route, points: points, correlationId: correlationId)
    }

    /// A walk's GPX: `{"device", "walk": id, "gpx", "correlationId"?}`.
    public static func gpx(device: String, walk: String, gpx: String, correlationId: CorrelationID?) -> WalksReply {
        WalksReply(device: device, walkID: walk, gpx: gpx, correlationId: correlationId)
    }

    enum CodingKeys: String, CodingKey { case device, walks, walk, route, points, gpx, error, correlationId }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        device = try container.decodeIfPresent(String.self, forKey: .device)
        walks = try container.decodeIfPresent([JournalWalk].self, forKey: .walks)
        if let id = try? container.decodeIfPresent(String.self, forKey: .walk) {
            walkID = id
            walk = nil
        } else {
            walk = try container.decodeIfPresent(JournalWalk.self, forKey: .walk)
            walkID = walk?.id
        }
        route = try container.decodeIfPresent([JournalRoutePoint].self, forKey: .route)
        points = try container.decodeIfPresent([JournalPhotoPoint].self, forKey: .points)
        gpx = try container.decodeIfPresent(String.self, forKey: .gpx)
        error = try container.decodeIfPresent(ErrorReply.Body.self, forKey: .error)
        correlationId = try container.decodeIfPresent(CorrelationID.self, forKey: .correlationId)
    }

    /// The fields that are there: `walk` is the walk of a walk reply, else the id of a GPX reply.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(device, forKey: .device)
        try container.encodeIfPresent(walks, forKey: .walks)
        if let walk {
            try container.encode(walk, forKey: .walk)
        } else {
            try container.encodeIfPresent(walkID, forKey: .walk)
        }
        try container.encodeIfPresent(route, forKey: .route)
        try container.encodeIfPresent(points, forKey: .points)
        try container.encodeIfPresent(gpx, forKey: .gpx)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(correlationId, forKey: .correlationId)
    }
}

/// A point of a walk's route in a walk reply, `distance` metres along it (one decimal); `source` says whether a GPS
/// fix (`gps`) or the dead-reckoned position (`deadReckoning`) placed it. `elevation` (metres, from the fix) is left
/// out when unknown.
public struct JournalRoutePoint: Codable, Sendable, Hashable {
    /// ISO 8601, UTC.
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
