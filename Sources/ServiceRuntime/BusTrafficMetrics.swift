public import Bus
import Metrics
import Synchronization

/// Counts a service's MQTT traffic by topic kind, and its connection: `stepcompass_messages_received_total`,
/// `stepcompass_messages_published_total` (labels `service`, `kind`), `stepcompass_mqtt_connected` (1 or 0) and
/// `stepcompass_mqtt_connects_total` (a reconnect adds one).
public final class BusTrafficMetrics: BusObserver {
    private let service: String
    private let topics: Topics
    private let counters = Mutex<[String: Counter]>([:])
    private let connected: Gauge
    private let connects: Counter
    private let lastConnects = Mutex(0)

    public init(service: String, topics: Topics) {
        self.service = service
        self.topics = topics
        connected = Gauge(label: "stepcompass_mqtt_connected", dimensions: [("service", service)])
        connects = Counter(label: "stepcompass_mqtt_connects_total", dimensions: [("service", service)])
        connected.record(0)
    }

    public func received(_ messages: [BusMessage]) {
        var kinds: [String: Int] = [:]
        for message in messages { kinds[topics.kind(of: message.topic), default: 0] += 1 }
        for (kind, count) in kinds { counter("stepcompass_messages_received_total", kind).increment(by: count) }
    }

    public func published(_ message: BusMessage) {
        counter("stepcompass_messages_published_total", topics.kind(of: message.topic)).increment()
    }

    public func connection(up: Bool, connects total: Int) {
        connected.record(up ? 1 : 0)
        guard up else { return }
        let added = lastConnects.withLock { last -> Int in
            defer { last = max(last, total) }
            return max(0, total - last)
        }
        if added > 0 { connects.increment(by: added) }
    }

    private func counter(_ name: String, _ kind: String) -> Counter {
        counters.withLock { counters in
            let key = name + "|" + kind
            if let counter = counters[key] { return counter }
            let counter = Counter(label: name, dimensions: [("service", service), ("kind", kind)])
            counters[key] = counter
            return counter
        }
    }
}
