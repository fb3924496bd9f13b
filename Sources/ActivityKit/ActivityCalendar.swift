public import Foundation

/// The granularity of a step history: per minute, per hour or per day.
public enum Granularity: String, Sendable, Hashable, CaseIterable, Codable {
    case minute, hour, day
}

/// The minute, hour and day a moment belongs to, as the start instants of those buckets.
///
/// Hours and days are those of a time zone (the device's, else the service's `--time-zone`): on a day when the
/// clocks change, the day has 23 or 25 hours, and a zone half an hour off UTC has hours that start at :30 UTC.
/// Minutes are UTC minutes (every zone in use today is a whole number of minutes off UTC).
public struct BucketStarts: Sendable, Hashable {
    /// The start of the minute, in seconds since 1970.
    public var minute: Int64
    /// The start of the hour in the time zone, in seconds since 1970.
    public var hour: Int64
    /// The start of the day in the time zone, in seconds since 1970.
    public var day: Int64

    public init(minute: Int64, hour: Int64, day: Int64) {
        self.minute = minute
        self.hour = hour
        self.day = day
    }

    /// The bucket start of `granularity`.
    public func start(_ granularity: Granularity) -> Int64 {
        switch granularity {
        case .minute: minute
        case .hour: hour
        case .day: day
        }
    }
}

/// Bucketing of moments in one time zone.
public struct ActivityCalendar: Sendable {
    /// The time zone of hours and days.
    public let timeZone: TimeZone
    /// The zone's name as given (`UTC` stays `UTC`, where Foundation on Linux would say `GMT`).
    public let identifier: String
    private let calendar: Calendar

    /// - Parameter timeZone: The time zone of hours and days.
    public init(timeZone: TimeZone) {
        self.init(timeZone: timeZone, identifier: timeZone.identifier)
    }

    /// The calendar of an IANA time zone identifier (`Europe/Berlin`, `UTC`); nil for an unknown one.
    public init?(identifier: String) {
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        self.init(timeZone: zone, identifier: identifier)
    }

    private init(timeZone: TimeZone, identifier: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.timeZone = timeZone
        self.identifier = identifier
        self.calendar = calendar
    }

    /// Coordinated Universal Time.
    public static let utc = ActivityCalendar(identifier: "UTC") ?? ActivityCalendar(timeZone: .gmt)

    /// The minute, hour and day of `date`.
    public func buckets(of date: Date) -> BucketStarts {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let minute = Int64(seconds) - Self.floorMod(Int64(seconds), 60)
        let hour = calendar.dateInterval(of: .hour, for: date)?.start ?? Date(timeIntervalSince1970: Double(minute))
        let day = calendar.startOfDay(for: date)
        return BucketStarts(
            minute: minute, hour: Int64(hour.timeIntervalSince1970.rounded(.down)),
            day: Int64(day.timeIntervalSince1970.rounded(.down)))
    }

    /// The start of the day of `date`, in seconds since 1970.
    public func dayStart(of date: Date) -> Int64 {
        Int64(calendar.startOfDay(for: date).timeIntervalSince1970.rounded(.down))
    }

    /// The starts of the `count` days that end with the day of `date`, oldest first.
    public func dayStarts(endingWith date: Date, count: Int) -> [Int64] {
        let today = calendar.startOfDay(for: date)
        return (0..<max(0, count)).reversed().map { back in
            let day = calendar.date(byAdding: .day, value: -back, to: today) ?? today
            return Int64(calendar.startOfDay(for: day).timeIntervalSince1970.rounded(.down))
        }
    }

    private static func floorMod(_ value: Int64, _ modulus: Int64) -> Int64 {
        let remainder = value % modulus
        return remainder < 0 ? remainder + modulus : remainder
    }
}
