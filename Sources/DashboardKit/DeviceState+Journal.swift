import Foundation
import StepCompassContract

extension DeviceState {
    /// The most photo points kept per device (of the walk that is on; the page asks the journal for the rest).
    public static let journalPointLimit = 200

    /// The Journal panel of this device.
    public var journalView: JournalView {
        guard let journal else { return .notReported }
        return JournalView(report: journal, device: id, points: journalPoints)
    }

    /// Records a `journal` message: the photo points of another walk are dropped.
    mutating func record(_ report: JournalMessage) {
        journal = report
        if let walk = report.walk?.id, journalPoints.contains(where: { $0.walk != walk }) {
            journalPoints.removeAll { $0.walk != walk }
        }
    }

    /// Records a `journal/photo` message: it replaces the same point's earlier message, and a point of another walk
    /// than the kept ones starts the list again (a new walk).
    mutating func record(_ report: JournalPhotoPoint) {
        // A late point of a walk that is no longer on is not kept; a new walk's first point replaces the old ones.
        if let current = journal?.walk?.id, current != report.walk { return }
        if journalPoints.contains(where: { $0.walk != report.walk }) { journalPoints.removeAll() }
        journalPoints.removeAll { $0.point == report.point }
        let index = journalPoints.firstIndex { $0.point > report.point } ?? journalPoints.endIndex
        journalPoints.insert(report, at: index)
        if journalPoints.count > Self.journalPointLimit {
            journalPoints.removeFirst(journalPoints.count - Self.journalPointLimit)
        }
    }
}

/// The Journal panel's words.
enum JournalText {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The Gregorian calendar in UTC.
    private static var utc: Calendar { ActivityText.utcCalendar }

    /// `350 m` below a kilometre, `1.24 km` from one.
    static func distance(_ metres: Double) -> String {
        guard metres.isFinite else { return DisplayText.unknown }
        return abs(metres) < 1_000 ? "\(DisplayText.decimal(metres, places: 0)) m" : "\(DisplayText.decimal(metres / 1_000, places: 2)) km"
    }

    /// `22 Nov 2026` (UTC).
    static func day(_ date: Date) -> String {
        let parts = utc.dateComponents([.day, .month, .year], from: date)
        return "\(parts.day ?? 1) \(months[((parts.month ?? 1) - 1 + 12) % 12]) \(parts.year ?? 1970)"
    }

    /// `10:15 UTC`.
    static func time(_ date: Date) -> String {
        let parts = utc.dateComponents([.hour, .minute], from: date)
        func twoDigits(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(twoDigits(parts.hour)):\(twoDigits(parts.minute)) UTC"
    }

    /// `22 Nov 2026, 10:15 UTC`.
    static func dateTime(_ date: Date) -> String { "\(day(date)), \(time(date))" }

    /// `1 photo`, `3 photos`.
    static func count(_ value: Int, _ one: String, _ many: String) -> String {
        "\(DisplayText.grouped(value)) \(value == 1 ? one : many)"
    }

    /// The first letter in upper case.
    static func sentence(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }

    /// A link the page may open: http(s) only (never `javascript:`), nil otherwise.
    static func webLink(_ text: String) -> String? {
        let lower = text.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://") ? text : nil
    }

    /// An image the page may show: a path on the dashboard (`/journal/photos/…`, not `//host`) or an http(s) URL.
    static func isImageURL(_ text: String) -> Bool {
        if webLink(text) != nil { return true }
        return text.hasPrefix("/") && !text.hasPrefix("//") && !text.contains("\\") && !text.split(separator: "/").contains("..")
    }

    /// A device or walk id for a URL path (ids are letters, digits, `_` and `-`; anything else is escaped).
    static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_"))) ?? text
    }
}
