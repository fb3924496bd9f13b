/// A service's retained `services/{service}/status` message (also its last will).
public struct ServiceStatusReport: Sendable, Hashable, Codable {
    /// `online` or `offline`.
    public var state: String
    public var service: String?
    public var version: String?
    public var startedAt: String?

    public init(state: String, service: String? = nil, version: String? = nil, startedAt: String? = nil) {
        self.state = state
        self.service = service
        self.version = version
        self.startedAt = startedAt
    }
}
