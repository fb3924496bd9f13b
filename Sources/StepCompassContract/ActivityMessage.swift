/// A device's retained `stepcompass/{device}/activity`: the last seven days of steps, the activity band, the
/// cadence, the motion authorization and, when authorized, a playlist that fits. Written by
/// `stepcompass-activity`, read by the dashboard and the client.
///
/// The service writes every field (`suggestion` and `guidance` null when they do not apply); a reader needs only
/// `days` and shows what else is there.
public struct ActivityMessage: Codable, Sendable, Hashable {
    /// A playlist the service suggests.
    public struct Playlist: Codable, Sendable, Hashable {
        public var id: String
        public var name: String
        public var description: String?
        /// The tempo range in beats per minute, `[low, high]`.
        public var tempo: [Double]?
        public var link: String?

        public init(id: String, name: String, description: String? = nil, tempo: [Double]? = nil, link: String? = nil) {
            self.id = id
            self.name = name
            self.description = description
            self.tempo = tempo
            self.link = link
        }
    }

    /// The suggestion and why.
    public struct Suggestion: Codable, Sendable, Hashable {
        public var playlist: Playlist
        public var reason: String?

        public init(playlist: Playlist, reason: String?) {
            self.playlist = playlist
            self.reason = reason
        }
    }

    /// The time of the device's last step message (ISO 8601, UTC).
    public var timestamp: String?
    /// Today's steps so far.
    public var today: Int64?
    /// Steps of the last seven days in ``timeZone``, oldest first, today last.
    public var days: [Int64]
    public var weekTotal: Int64?
    public var dailyMean: Double?
    /// `sedentary`, `lowActive`, `somewhatActive`, `active` or `highlyActive`.
    public var band: String?
    /// Steps per minute lately; 0 when not walking.
    public var cadence: Double?
    /// The device's `motion` permission (`authorized`, `denied`, ...), `unknown` before its first permissions message.
    public var authorization: String?
    /// The IANA time zone the days are counted in.
    public var timeZone: String?
    /// The suggested playlist, nil when the authorization withholds it.
    public var suggestion: Suggestion?
    /// Why there is no suggestion and what to do; nil when authorized.
    public var guidance: String?

    public init(
        timestamp: String? = nil, today: Int64? = nil, days: [Int64], weekTotal: Int64? = nil, dailyMean: Double? = nil,
        band: String? = nil, cadence: Double? = nil, authorization: String? = nil, timeZone: String? = nil,
        suggestion: Suggestion? = nil, guidance: String? = nil
    ) {
        self.timestamp = timestamp
        self.today = today
        self.days = days
        self.weekTotal = weekTotal
        self.dailyMean = dailyMean
        self.band = band
        self.cadence = cadence
        self.authorization = authorization
        self.timeZone = timeZone
        self.suggestion = suggestion
        self.guidance = guidance
    }

    enum CodingKeys: String, CodingKey {
        case timestamp, today, days, weekTotal, dailyMean, band, cadence, authorization, timeZone, suggestion, guidance
    }

    /// Every field, null when absent (`suggestion` and `guidance` are null, not left out, when they do not apply).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(today, forKey: .today)
        try container.encode(days, forKey: .days)
        try container.encode(weekTotal, forKey: .weekTotal)
        try container.encode(dailyMean, forKey: .dailyMean)
        try container.encode(band, forKey: .band)
        try container.encode(cadence, forKey: .cadence)
        try container.encode(authorization, forKey: .authorization)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(suggestion, forKey: .suggestion)
        try container.encode(guidance, forKey: .guidance)
    }
}
