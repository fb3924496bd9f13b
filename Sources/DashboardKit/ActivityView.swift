/// The Activity panel: the last seven days of steps as bars, today's count, the activity band, the cadence
/// while walking and the playlist suggested for it, or what to do when motion access stands in the way.
public struct ActivityView: Sendable, Hashable, Codable {
    /// Whether the device has an `activity` message at all (the panel says so when not).
    public var reported: Bool
    public var today: Int?
    /// `Today: 4,321 steps`.
    public var todayText: String
    /// The seven bars, oldest first, today last (empty before the first report).
    public var days: [Day]
    /// The tallest bar's steps (at least 1): the chart's scale.
    public var maxSteps: Int
    /// `Steps on each of the last 7 days`: the chart's name.
    public var chartLabel: String
    /// `This week: 43,321 steps, 6,189 a day on average`.
    public var weekText: String?
    /// `lowActive`.
    public var band: String?
    /// `Low active`.
    public var bandText: String?
    /// `Activity level: Low active (Tudor-Locke: 5,000–7,499 steps a day)`.
    public var bandDetailText: String?
    public var cadence: Double?
    /// `Cadence: 104 steps/min`, present only while walking (cadence above 0).
    public var cadenceText: String?
    /// `authorized`, `notDetermined`, `denied`, `restricted` or `unavailable`.
    public var authorization: String?
    /// Why there is no suggestion and what to do; nil when authorized.
    public var guidance: String?
    /// The suggested playlist; nil without one (or when not authorized).
    public var playlist: PlaylistView?
    /// `As of 10:15 (UTC)`, nil without a readable timestamp.
    public var updatedText: String?

    /// One bar of the chart.
    public struct Day: Sendable, Hashable, Codable {
        public var steps: Int
        /// The short label under the bar: `Mon`, … and `Today` for the last.
        public var label: String
        /// `Monday 16 Nov`, `Today (Sunday 22 Nov)`, or `3 days ago` without a timestamp.
        public var name: String
        /// `Monday 16 Nov: 8,000 steps`, or `Today (Sunday 22 Nov): 4,321 steps`: the bar's accessible name.
        public var text: String
        /// The steps alone, `8,000`.
        public var stepsText: String
        public var isToday: Bool
    }

    /// The playlist that fits the steps.
    public struct PlaylistView: Sendable, Hashable, Codable {
        public var id: String
        public var name: String
        public var description: String?
        /// `95–115 BPM`.
        public var tempoText: String?
        /// Where to listen, nil without a usable http(s) link.
        public var link: String?
        /// `Open Focused` (the link's text).
        public var linkText: String
        /// Why this playlist.
        public var reason: String?
    }
}
