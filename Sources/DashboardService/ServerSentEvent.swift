/// One Server-Sent Event in the `text/event-stream` format.
struct ServerSentEvent: Sendable, Hashable {
    var name: String?
    var data: String

    /// The event's text: `event:` and one `data:` line per line of data, then a blank line.
    var text: String {
        var out = ""
        if let name { out += "event: \(name)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
            out += "data: \(line)\n"
        }
        return out + "\n"
    }

    /// A comment (ignored by EventSource).
    static let keepAlive = ": keep-alive\n\n"
}
