public import Bus
public import Foundation

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

    /// The status as a retained QoS 1 message.
    public func message(topics: Topics) -> BusMessage {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = (try? encoder.encode(self)) ?? Data()
        return BusMessage(topic: topics.serviceStatus(service), payload: payload, qos: .atLeastOnce, retain: true)
    }

    /// The `online` and `offline` messages of a service started at `startedAt`.
    /// - Parameters:
    ///   - service: The contract's service name.
    ///   - topics: The topic names.
    ///   - startedAt: The start time.
    public static func messages(service: String, topics: Topics, startedAt: Date) -> (online: BusMessage, offline: BusMessage) {
        let online = ServiceStatus(
            state: .online, service: service, version: StepCompassVersion.current, startedAt: Timestamp.format(startedAt))
        var offline = online
        offline.state = .offline
        return (online.message(topics: topics), offline.message(topics: topics))
    }
}

/// The version every service reports in its status.
public enum StepCompassVersion {
    public static let current = "0.1.0"
}
