import Bus
import Metrics
import MosquittoBus
import Synchronization

/// The runtime's gauges that are read when Prometheus scrapes rather than kept up to date: publishes waiting for
/// acknowledgement, the subscriptions' backlog and drops, the service info, and the service's own
/// ``ServiceInstruments/onScrape(_:)`` closures.
///
/// - `stepcompass_service_info{service,version}` (1), `stepcompass_mqtt_inflight_publishes{service}`;
/// - `stepcompass_subscription_buffered_messages{service}`: messages delivered to the service's subscriptions and
///   not yet read (its backlog), `stepcompass_subscription_held_messages{service}`: messages held for a subscription
///   not made yet;
/// - `stepcompass_subscription_dropped_messages_total{service,reason}`: `reason` is `buffer_full` (a subscription's
///   consumer fell `--mqtt-subscription-buffer` messages behind) or `unmatched` (the hold buffer was full).
final class RuntimeScrapeMetrics: Sendable {
    private let bus: any MessageBus
    private let instruments: ServiceInstruments
    private let info: Gauge
    private let inflight: Gauge
    private let buffered: Gauge
    private let held: Gauge
    private let droppedFull: Counter
    private let droppedUnmatched: Counter
    /// The drop counts already added to the counters (the bus reports totals).
    private let counted = Mutex((full: 0, unmatched: 0))

    init(service: String, bus: any MessageBus, instruments: ServiceInstruments) {
        self.bus = bus
        self.instruments = instruments
        info = Gauge(label: "stepcompass_service_info", dimensions: [("service", service), ("version", StepCompassVersion.current)])
        inflight = Gauge(label: "stepcompass_mqtt_inflight_publishes", dimensions: [("service", service)])
        buffered = Gauge(label: "stepcompass_subscription_buffered_messages", dimensions: [("service", service)])
        held = Gauge(label: "stepcompass_subscription_held_messages", dimensions: [("service", service)])
        droppedFull = Counter(
            label: "stepcompass_subscription_dropped_messages_total", dimensions: [("service", service), ("reason", "buffer_full")])
        droppedUnmatched = Counter(
            label: "stepcompass_subscription_dropped_messages_total", dimensions: [("service", service), ("reason", "unmatched")])
    }

    /// Sets every scrape-time gauge (the metrics endpoint calls it before it answers).
    func refresh() {
        info.record(1)
        if let mosquitto = bus as? MosquittoBus { inflight.record(mosquitto.inflight) }
        if let reporting = bus as? any SubscriptionBufferReporting {
            let statistics = reporting.subscriptionBuffers
            buffered.record(statistics.buffered)
            held.record(statistics.held)
            let added = counted.withLock { counted -> (full: Int, unmatched: Int) in
                // Totals only grow; a smaller one (read while a connection's router is replaced) adds nothing.
                let added = (max(0, statistics.droppedFull - counted.full), max(0, statistics.droppedUnmatched - counted.unmatched))
                counted = (max(counted.full, statistics.droppedFull), max(counted.unmatched, statistics.droppedUnmatched))
                return added
            }
            if added.full > 0 { droppedFull.increment(by: added.full) }
            if added.unmatched > 0 { droppedUnmatched.increment(by: added.unmatched) }
        }
        instruments.refreshForScrape()
    }
}
