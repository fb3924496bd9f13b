/// A device's retained `activity` message (published by `stepcompass-activity`): the last seven days of steps,
/// the activity band, the cadence, the motion authorization and, when authorized, a playlist that fits.
///
/// Only `days` is required; the rest is read when present, so a partial message still shows what it has.
public struct ActivityReport: Sendable, Hashable, Decodable {
    /// When the summary was made (ISO 8601, UTC).
    public var timestamp: String?
    /// The IANA time zone the days are counted in.
    public var timeZone: String?
    /// Today's steps so far.
    public var today: Int?
    /// Steps of the last seven days, oldest first, today last.
    public var days: [Int]
    public var weekTotal: Int?
    public var dailyMean: Double?
    /// `sedentary`, `lowActive`, `somewhatActive`, `active` or `highlyActive`.
    public var band: String?
    /// Steps per minute over the last minute; 0 when not walking.
    public var cadence: Double?
    /// `authorized`, `notDetermined`, `denied`, `restricted` or `unavailable`.
    public var authorization: String?
    /// Why there is no suggestion and what to do; nil when authorized.
    public var guidance: String?
    /// The suggested playlist, nil when the authorization withholds it.
    public var suggestion: Suggestion?

    public struct Suggestion: Sendable, Hashable, Decodable {
        public var playlist: Playlist
        public var reason: String?

        public init(playlist: Playlist, reason: String?) {
            self.playlist = playlist
            self.reason = reason
        }
    }

    public struct Playlist: Sendable, Hashable, Decodable {
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

    public init(
        timestamp: String? = nil, timeZone: String? = nil, today: Int? = nil, days: [Int], weekTotal: Int? = nil,
        dailyMean: Double? = nil, band: String? = nil, cadence: Double? = nil, authorization: String? = nil,
        guidance: String? = nil, suggestion: Suggestion? = nil
    ) {
        self.timestamp = timestamp
        self.timeZone = timeZone
        self.today = today
        self.days = days
        self.weekTotal = weekTotal
        self.dailyMean = dailyMean
        self.band = band
        self.cadence = cadence
        self.authorization = authorization
        self.guidance = guidance
        self.suggestion = suggestion
    }
}
