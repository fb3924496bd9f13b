import DashboardKit
public import Foundation
import ServiceRuntime

/// A walk as the journal (`stepcompass-journal`) publishes it, in `{device}/journal` and in `journal/walks` replies.
public struct JournalWalk: Sendable, Hashable, Decodable {
    public let id: String
    public let name: String?
    /// ISO 8601 UTC.
    public let started: String
    /// ISO 8601 UTC; nil while the walk is on.
    public let stopped: String?
    /// Metres.
    public let distance: Double
    public let routePoints: Int
    public let points: Int
    public let photos: Int

    public init(id: String, name: String?, started: String, stopped: String?, distance: Double, routePoints: Int, points: Int, photos: Int) {
        self.id = id
        self.name = name
        self.started = started
        self.stopped = stopped
        self.distance = distance
        self.routePoints = routePoints
        self.points = points
        self.photos = photos
    }

    /// When it started, nil when the timestamp cannot be read.
    public var startedDate: Date? { Timestamp.parse(started) }

    /// `2026-11-23 08:00` (UTC), or the timestamp as it came when it cannot be read.
    static func minute(_ timestamp: String) -> String {
        Timestamp.parse(timestamp).map(ClientText.utcMinute) ?? timestamp
    }

    /// `850 m`, `4.23 km`.
    static func distanceText(_ metres: Double) -> String {
        metres < 1_000 ? "\(DisplayText.decimal(metres, places: 0)) m" : "\(DisplayText.decimal(metres / 1_000, places: 2)) km"
    }

    /// `'Morning loop' (3f2a…)`, or the id alone for a walk without a name.
    var title: String {
        guard let name, !name.isEmpty else { return id }
        return "'\(name)' (\(id))"
    }
}

/// A device's retained `stepcompass/{device}/journal` message: the walk that is on (or none), whether the journal
/// records it and, when not, why.
public struct JournalState: Sendable, Hashable, Decodable {
    public let timestamp: String?
    public let walk: JournalWalk?
    public let recording: Bool
    public let reason: String?

    /// Decodes a payload.
    /// - Throws: ``StepCompassClientError/Code/unreadableReply`` when it is not a journal message.
    public init(payload: Data) throws(StepCompassClientError) {
        do {
            self = try JSONDecoder().decode(JournalState.self, from: payload)
        } catch {
            throw StepCompassClientError(
                .unreadableReply,
                "the journal message is not the contract's: \(String(decoding: payload.prefix(200), as: UTF8.self))")
        }
    }

    /// The state in words: `walk 'Morning loop' (3f2a…) on since 2026-11-23 08:00 UTC, 1.20 km, 2 photos`, with why
    /// nothing is recorded when it is not; `no walk on`.
    public var text: String {
        guard let walk else { return "no walk on" }
        var text =
            "walk \(walk.title) on since \(JournalWalk.minute(walk.started)) UTC, \(JournalWalk.distanceText(walk.distance)), "
            + "\(walk.photos) photo\(walk.photos == 1 ? "" : "s")"
        if !recording { text += "; not recording: \(reason ?? "the journal does not say why")" }
        return text
    }
}
