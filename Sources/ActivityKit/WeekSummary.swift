/// A person's activity band: the Tudor-Locke steps-per-day classes for healthy adults, from the mean of the last
/// seven days.
public enum ActivityBand: String, Sendable, Hashable, CaseIterable, Codable {
    /// Fewer than 5,000 steps a day.
    case sedentary
    /// 5,000 to 7,499.
    case lowActive
    /// 7,500 to 9,999.
    case somewhatActive
    /// 10,000 to 12,499.
    case active
    /// 12,500 or more.
    case highlyActive

    /// The band of a daily mean.
    public init(dailyMean: Double) {
        switch dailyMean {
        case ..<5_000: self = .sedentary
        case ..<7_500: self = .lowActive
        case ..<10_000: self = .somewhatActive
        case ..<12_500: self = .active
        default: self = .highlyActive
        }
    }
}

/// The last seven days of a device: steps per day in its time zone, oldest first, today last.
public struct WeekSummary: Sendable, Hashable {
    /// Steps of each of the seven days, oldest first; the last is today (so far).
    public let days: [Int64]

    /// - Parameter days: Steps per day, oldest first, today last; padded with zeros in front (or cut) to seven.
    public init(days: [Int64]) {
        let lastSeven = Array(days.suffix(7))
        self.days = Array(repeating: 0, count: 7 - lastSeven.count) + lastSeven
    }

    /// Builds the summary from day buckets.
    /// - Parameters:
    ///   - dayStarts: The starts of the seven days, oldest first (``ActivityCalendar/dayStarts(endingWith:count:)``).
    ///   - steps: Steps per day start; days not in it had none.
    public init(dayStarts: [Int64], steps: [Int64: Int64]) {
        self.init(days: dayStarts.map { steps[$0] ?? 0 })
    }

    /// Today's steps so far.
    public var today: Int64 { days.last ?? 0 }
    /// The seven days' steps.
    public var weekTotal: Int64 { days.reduce(0, +) }
    /// The mean of the seven days (today included, so far).
    public var dailyMean: Double { Double(weekTotal) / 7 }
    /// The band of ``dailyMean``.
    public var band: ActivityBand { ActivityBand(dailyMean: dailyMean) }
}

/// Steps per minute over the last minute of sample time, from the deltas of a device's step messages.
///
/// A delta counts only when the message continues the session of a message at most a window older: the first count
/// of a device or of a new session covers an unknown stretch of time (a first message of 5,000 is not a cadence of
/// 5,000 a minute), so it adds to the history but not to the cadence. The window is a minute unless a shorter one is
/// asked for; the steps in it are always scaled to steps per minute.
public struct CadenceMeter: Sendable {
    private struct Entry: Sendable {
        var at: Double
        var steps: Int64
    }

    private var recent: [Entry] = []
    private var lastMessage: Double?

    /// The default window, in seconds: a minute.
    public static let minute = 60.0

    /// The window, in seconds.
    public let window: Double

    /// Creates a meter.
    /// - Parameter window: The window in seconds (a minute by default; values below a millisecond are raised to it).
    public init(window: Double = CadenceMeter.minute) {
        self.window = max(window, 0.001)
    }

    /// Records the delta of a step message.
    /// - Parameters:
    ///   - delta: Its new steps.
    ///   - time: Its timestamp, in seconds since 1970.
    ///   - continuesSession: Whether it continues the session of the previous count (false for a new session).
    public mutating func record(delta: Int64, at time: Double, continuesSession: Bool) {
        defer { lastMessage = max(lastMessage ?? time, time) }
        guard continuesSession, let lastMessage, abs(time - lastMessage) <= window else { return }
        if delta > 0 { recent.append(Entry(at: time, steps: delta)) }
        let horizon = max(time, lastMessage) - window * 2
        recent.removeAll { $0.at <= horizon }
    }

    /// Steps per minute over the window that ends at `time`: 0 once a window has passed without steps.
    public func cadence(at time: Double) -> Double {
        let steps = recent.filter { $0.at > time - window && $0.at <= time }.reduce(0) { $0 + $1.steps }
        return Double(steps) * Self.minute / window
    }
}
