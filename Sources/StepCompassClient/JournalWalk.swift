import DashboardKit
public import Foundation
public import ServiceRuntime

/// A walk as the journal (`stepcompass-journal`) publishes it, in `{device}/journal` and in `journal/walks` replies,
/// as the client prints it: the contract's ``JournalWalk``.
extension JournalWalk {
    /// When it started, nil when the timestamp is missing or cannot be read.
    public var startedDate: Date? { started.flatMap(Timestamp.parse) }

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

/// A device's retained `stepcompass/{device}/journal` message (the walk that is on, or none, whether the journal
/// records it and, when not, why), as the client reads and prints it: the contract's ``JournalMessage``.
extension JournalMessage {
    /// Decodes a payload.
    /// - Throws: ``StepCompassClientError/Code/unreadableReply`` when it is not a journal message.
    public init(payload: Data) throws(StepCompassClientError) {
        do {
            self = try JSONDecoder().decode(JournalMessage.self, from: payload)
        } catch {
            throw StepCompassClientError(
                .unreadableReply,
                "the journal message is not the contract's: \(String(decoding: payload.prefix(200), as: UTF8.self))")
        }
    }

    /// The state in words: `walk 'Morning loop' (3f2a…) on since 2026-11-23 08:00 UTC, 1.20 km, 2 photos`, with why
    /// nothing is recorded when it is not; `no walk on`. What the message leaves out is left out.
    public var text: String {
        guard let walk else { return "no walk on" }
        var text = "walk \(walk.title) on"
        if let started = walk.started { text += " since \(JournalWalk.minute(started)) UTC" }
        if let distance = walk.distance { text += ", \(JournalWalk.distanceText(distance))" }
        if let photos = walk.photos { text += ", \(photos) photo\(photos == 1 ? "" : "s")" }
        if !recording { text += "; not recording: \(reason ?? "the journal does not say why")" }
        return text
    }
}
