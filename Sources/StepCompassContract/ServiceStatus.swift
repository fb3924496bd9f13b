/// A service's retained status on `stepcompass/services/{service}/status`, also its last will.
public struct ServiceStatus: Codable, Sendable, Equatable {
    /// `online` or `offline`.
    public enum State: String, Codable, Sendable {
        case online, offline
    }

    public var state: State
    public var service: String
    public var version: String
    public var startedAt: String

    public init(state: State, service: String, version: String, startedAt: String) {
        self.state = state
        self.service = service
        self.version = version
        self.startedAt = startedAt
    }
}

/// The version every service reports in its status.
public enum StepCompassVersion {
    public static let current = "0.1.0"
}
