public import Bus
public import Foundation

extension ServiceStatus {
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
