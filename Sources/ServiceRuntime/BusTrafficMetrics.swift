public import Bus
import Metrics

/// Counts a service's MQTT traffic by topic kind, and its connection: `stepcompass_messages_received_total`,
/// `stepcompass_messages_published_total` (labels `service`, `kind`), `stepcompass_mqtt_connected` (1 or 0) and
/// `stepcompass_mqtt_connects_total` (a reconnect adds one).
public final class BusTrafficMetrics: BusObserver {
    private let instruments: ServiceInstruments
    private let connected: Gauge
    private let connects: Counter

    public init(service: String, topics: Topics) {
        instruments = ServiceInstruments(service: service, topics: topics, enabled: true)
        connected = Gauge(label: "stepcompass_mqtt_connected", dimensions: [("service", service)])
        connects = Counter(label: "stepcompass_mqtt_connects_total", dimensions: [("service", service)])
        connected.record(0)
    }

    public func received(_ messages: [BusMessage]) {
        for message in messages { instruments.counter("stepcompass_messages_received_total", kindOf: message.topic).increment() }
    }

    public func published(_ message: BusMessage) {
        instruments.counter("stepcompass_messages_published_total", kindOf: message.topic).increment()
    }

    public func connection(up: Bool) {
        connected.record(up ? 1 : 0)
        if up { connects.increment() }
    }
}
