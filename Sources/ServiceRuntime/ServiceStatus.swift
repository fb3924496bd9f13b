public import Bus
import Foundation

/// The retained status of a service (`stepcompass/services/{service}/status`), also its last will.
public struct ServiceStatus: Codable, Sendable, Equatable {
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

    /// The status as a retained QoS 1 message on its topic.
    public func message(topics: Topics) -> BusMessage {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = (try? encoder.encode(self)) ?? Data()
        return BusMessage(topic: topics.serviceStatus(service), payload: payload, qos: .atLeastOnce, retain: true)
    }
}

/// The version every StepCompass service reports in its status.
public enum StepCompassVersion {
    public static let current = "0.1.0"
}
