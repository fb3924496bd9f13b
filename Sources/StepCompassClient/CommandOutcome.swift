public import Foundation

/// What a ``CommandSender`` sent and what it saw come of it.
public struct CommandOutcome: Sendable, Hashable {
    /// Whether the command's effect was seen.
    public enum Status: Sendable, Hashable {
        /// The service showed the effect; the text is the new state in the dashboard's words.
        case confirmed(String)
        /// Nothing confirmed it within the wait; `lastSeen` is the state last reported, if any.
        case unconfirmed(waited: Duration, service: String, lastSeen: String?)
        /// The service reported that it rejected the command (its reason).
        case rejected(String)
        /// The state before the command was already the one asked for, so the service has nothing to change (a walk
        /// started while one is on, or stopped while none is); the text says so.
        case unchanged(String)
        /// The command has no visible effect to wait for, or waiting was turned off.
        case notAwaited
    }

    /// The command topic.
    public var topic: String
    /// The payload published.
    public var payload: Data
    /// What was sent, in words: `locked walker-1 at 45° (threshold 10°)`.
    public var sent: String
    public var status: Status

    /// The lines to print: what was sent, then how it was confirmed (or that it was not).
    public var lines: [String] {
        var lines = [sent]
        switch status {
        case .confirmed(let state): lines.append("confirmed: \(state)")
        case .unconfirmed(let waited, let service, let lastSeen):
            var line = "sent, but not confirmed within \(waited.secondsText): is stepcompass-\(service) running?"
            if let lastSeen { line += " (last reported: \(lastSeen))" }
            lines.append(line)
        case .rejected(let reason): lines.append("rejected: \(reason)")
        case .unchanged(let state): lines.append("unchanged: \(state)")
        case .notAwaited: break
        }
        return lines
    }
}
