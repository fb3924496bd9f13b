/// The kinds of Server-Sent Events the dashboard sends; their names are the SSE `event:` field.
enum EventKind: String, Sendable, Hashable, CaseIterable {
    case devices, device, path, markers, services, journal
    /// A comment line that keeps proxies from closing an idle stream and finds closed connections.
    case keepAlive
}
