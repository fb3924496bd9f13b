import Foundation
import StepCompassContract

extension ActivityView {
    /// The panel of a device without an `activity` message.
    static let notReported = ActivityView(
        reported: false, today: nil, todayText: DisplayText.todaySteps(nil), days: [], maxSteps: 1,
        chartLabel: ActivityText.chartLabel, weekText: nil, band: nil, bandText: nil, bandDetailText: nil,
        cadence: nil, cadenceText: nil, authorization: nil, guidance: nil, playlist: nil, updatedText: nil)

    /// The Activity panel of a device's last `activity` message (``notReported`` without one).
    ///
    /// ``DeviceState`` builds it when the message changes, not on every heading or position.
    init(report activity: ActivityMessage?) {
        guard let activity else {
            self = .notReported
            return
        }
        let days = activity.days.suffix(7).map { Int(clamping: $0) }
        let today = activity.today.map { Int(clamping: $0) } ?? days.last
        let calendar = ActivityText.calendar(timeZone: activity.timeZone)
        let now = activity.timestamp.flatMap(Timestamp.parse)
        let bars = days.enumerated().map { index, steps in
            ActivityText.day(steps: steps, daysAgo: days.count - 1 - index, now: now, calendar: calendar)
        }
        let weekTotal = activity.weekTotal.map { Int(clamping: $0) } ?? days.reduce(0, +)
        let mean = activity.dailyMean ?? (days.isEmpty ? nil : Double(weekTotal) / 7)
        let authorized = activity.authorization == nil || activity.authorization == "authorized"
        let cadence = activity.cadence.flatMap { $0.isFinite ? $0 : nil }
        self.init(
            reported: true,
            today: today,
            todayText: DisplayText.todaySteps(today),
            days: bars,
            maxSteps: max(1, days.max() ?? 0),
            chartLabel: ActivityText.chartLabel,
            weekText: mean.map { "This week: \(DisplayText.grouped(weekTotal)) steps, \(DisplayText.decimal($0, places: 0)) a day on average" },
            band: activity.band,
            bandText: activity.band.map(DisplayText.activityBand),
            bandDetailText: activity.band.map(ActivityText.bandDetail),
            cadence: cadence,
            cadenceText: DisplayText.cadence(cadence),
            authorization: activity.authorization,
            guidance: authorized ? nil : (activity.guidance ?? ActivityText.guidance(activity.authorization)),
            playlist: authorized ? activity.suggestion.map(ActivityText.playlist) : nil,
            updatedText: now.map { ActivityText.updated($0, calendar: calendar, zone: activity.timeZone) })
    }
}

/// The activity panel's words that need a calendar (kept out of ``DisplayText``, which needs none).
enum ActivityText {
    static let chartLabel = "Steps on each of the last 7 days"

    private static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The Gregorian calendar in UTC, built once (the journal's words use it too).
    static let utcCalendar = gregorian(in: TimeZone(identifier: "UTC")!)

    private static func gregorian(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// A Gregorian calendar in the device's zone (UTC when unknown).
    static func calendar(timeZone: String?) -> Calendar {
        guard let zone = timeZone.flatMap(TimeZone.init(identifier:)), zone.identifier != utcCalendar.timeZone.identifier else {
            return utcCalendar
        }
        return gregorian(in: zone)
    }

    /// One bar: named by its weekday and date when the timestamp is known, else by how many days ago.
    static func day(steps: Int, daysAgo: Int, now: Date?, calendar: Calendar) -> ActivityView.Day {
        let stepsText = DisplayText.grouped(steps)
        let count = "\(stepsText) \(steps == 1 ? "step" : "steps")"
        guard let now, let date = calendar.date(byAdding: .day, value: -daysAgo, to: now) else {
            let relative = daysAgo == 0 ? "Today" : daysAgo == 1 ? "Yesterday" : "\(daysAgo) days ago"
            let label = daysAgo == 0 ? "Today" : daysAgo == 1 ? "Yest." : "–\(daysAgo) d"
            return .init(steps: steps, label: label, name: relative, text: "\(relative): \(count)", stepsText: stepsText, isToday: daysAgo == 0)
        }
        let parts = calendar.dateComponents([.weekday, .day, .month], from: date)
        let weekday = weekdays[((parts.weekday ?? 1) - 1 + 7) % 7]
        let dated = "\(weekday) \(parts.day ?? 1) \(months[((parts.month ?? 1) - 1 + 12) % 12])"
        if daysAgo == 0 {
            return .init(
                steps: steps, label: "Today", name: "Today (\(dated))", text: "Today (\(dated)): \(count)", stepsText: stepsText, isToday: true)
        }
        return .init(steps: steps, label: String(weekday.prefix(3)), name: dated, text: "\(dated): \(count)", stepsText: stepsText, isToday: false)
    }

    /// `As of 10:15 (UTC)`: the time in the device's zone, and the zone.
    static func updated(_ date: Date, calendar: Calendar, zone: String?) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        func twoDigits(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "As of \(twoDigits(parts.hour)):\(twoDigits(parts.minute)) (\(zone.flatMap { TimeZone(identifier: $0) == nil ? nil : $0 } ?? "UTC"))"
    }

    /// The band's range in steps a day.
    static func bandDetail(_ band: String) -> String {
        let range: String? =
            switch band {
            case "sedentary": "fewer than 5,000 steps a day"
            case "lowActive": "5,000–7,499 steps a day"
            case "somewhatActive": "7,500–9,999 steps a day"
            case "active": "10,000–12,499 steps a day"
            case "highlyActive": "12,500 or more steps a day"
            default: nil
            }
        let name = DisplayText.activityBand(band)
        return range.map { "Activity level: \(name) (\($0) on average)" } ?? "Activity level: \(name)"
    }

    /// What to do when the payload gives no guidance of its own.
    static func guidance(_ authorization: String?) -> String {
        switch authorization {
        case "notDetermined":
            "Allow motion access when the app asks (Motion & Fitness on iPhone, Physical activity on Android) to get music that fits your steps."
        case "denied":
            "Motion access is off. Turn it on in Settings: on iPhone Privacy & Security → Motion & Fitness, on Android Apps → the app → Permissions → Physical activity."
        case "restricted":
            "Motion access is restricted on this device (Screen Time or a device policy). Whoever manages the device can allow Motion & Fitness or Physical activity."
        case "unavailable": "This device has no step counter, so there are no steps to suggest music for."
        case let other?: "Motion access: \(other). No music is suggested without it."
        case nil: "Motion access is unknown. No music is suggested without it."
        }
    }

    static func playlist(_ suggestion: ActivityMessage.Suggestion) -> ActivityView.PlaylistView {
        let playlist = suggestion.playlist
        let link = playlist.link.flatMap { link in
            link.lowercased().hasPrefix("https://") || link.lowercased().hasPrefix("http://") ? link : nil
        }
        return .init(
            id: playlist.id, name: playlist.name, description: playlist.description,
            tempoText: playlist.tempo.flatMap(DisplayText.tempo), link: link, linkText: "Open \(playlist.name)",
            reason: suggestion.reason)
    }
}
