public import Bus
public import Metrics
import Synchronization

/// A service's own metrics, all with its `service` label: the time it spends handling each message by topic kind,
/// the devices it tracks, and the metrics each service adds (``counter(_:_:)``, ``gauge(_:_:)``, ``timer(_:_:)``).
///
/// Every ``BusServiceContext`` has one (`context.metrics`). A service makes its metric objects once and keeps them;
/// ``handled(_:since:)`` caches its timers, so timing a message costs two clock reads, a lock and a dictionary
/// look-up. Without metrics (no `--metrics-port`, swift-metrics not bootstrapped when the context was made) it
/// does nothing.
///
/// - `stepcompass_message_handling_seconds{service,kind}`: a histogram of the time from taking a message off the
///   subscription to being done with it (its publications included), by topic kind (``Topics/kind(of:)``).
/// - `stepcompass_devices_tracked{service}`: the devices the service keeps state for (``devicesTracked(_:)``).
public final class ServiceInstruments: Sendable {
    /// The `service` label.
    public let service: String
    /// Whether swift-metrics was bootstrapped when this was made (else every metric goes nowhere).
    public let isEnabled: Bool
    private let topics: Topics
    /// The handling timers by topic (bounded) and by kind: a topic repeats, so its kind is parsed once.
    private let handling = Mutex<(byTopic: [String: Metrics.Timer], byKind: [String: Metrics.Timer])>(([:], [:]))
    private let devices = Mutex<Gauge?>(nil)
    private let deviceOutcomes = Mutex<(evicted: Counter, refused: Counter)?>(nil)
    private let scrapes = Mutex<[@Sendable () -> Void]>([])
    /// Counters by name and topic (bounded, like the timers): a topic's kind is parsed once.
    private let byTopic = Mutex<[String: [String: Counter]]>([:])
    private let labelled = Mutex<[String: Counter]>([:])

    /// Topics remembered for their timer (a few per device); the topics of more devices have their kind parsed
    /// each time (about a microsecond).
    private static let topicCacheLimit = 8_192

    /// Creates the instruments of one service.
    /// - Parameters:
    ///   - service: The `service` label.
    ///   - topics: The topic names (for the kinds).
    ///   - enabled: Whether to record; by default, whether ``ServiceMetrics/bootstrap(service:)`` has run.
    public init(service: String, topics: Topics, enabled: Bool? = nil) {
        self.service = service
        self.topics = topics
        self.isEnabled = enabled ?? (ServiceMetrics.registry != nil)
    }

    // MARK: Every service

    /// Records the time spent handling `message`, from `start` to now, under its topic's kind.
    public func handled(_ message: BusMessage, since start: ContinuousClock.Instant) {
        guard isEnabled else { return }
        let elapsed = ContinuousClock.now - start
        handlingTimer(topic: message.topic).record(duration: elapsed)
    }

    /// Records the time spent handling a message of `kind` (a service that knows it already), from `start` to now.
    public func handled(kind: String, since start: ContinuousClock.Instant) {
        guard isEnabled else { return }
        let elapsed = ContinuousClock.now - start
        handlingTimer(kind: kind).record(duration: elapsed)
    }

    /// Sets `stepcompass_devices_tracked`: call it when the number of devices the service keeps state for changes.
    public func devicesTracked(_ count: Int) {
        guard isEnabled else { return }
        let gauge = devices.withLock { gauge in
            if let gauge { return gauge }
            let made = Gauge(label: "stepcompass_devices_tracked", dimensions: [("service", service)])
            gauge = made
            return made
        }
        gauge.record(count)
    }

    /// Counts a device forgotten to make room for a new one (`stepcompass_devices_evicted_total`).
    public func deviceEvicted() {
        deviceOutcomeCounters()?.evicted.increment()
    }

    /// Counts a message of a new device rejected because the device table was full (`stepcompass_devices_refused_total`).
    public func deviceRefused() {
        deviceOutcomeCounters()?.refused.increment()
    }

    private func deviceOutcomeCounters() -> (evicted: Counter, refused: Counter)? {
        guard isEnabled else { return nil }
        return deviceOutcomes.withLock { counters in
            if let counters { return counters }
            let made = (
                evicted: Counter(label: "stepcompass_devices_evicted_total", dimensions: [("service", service)]),
                refused: Counter(label: "stepcompass_devices_refused_total", dimensions: [("service", service)])
            )
            counters = made
            return made
        }
    }

    /// Runs `refresh` before every scrape of `GET /metrics`, to set gauges from state that is cheaper to read
    /// than to keep up to date (it runs on the HTTP server's thread: read under a lock, never suspend).
    public func onScrape(_ refresh: @escaping @Sendable () -> Void) {
        scrapes.withLock { $0.append(refresh) }
    }

    /// Runs the ``onScrape(_:)`` closures (the metrics endpoint does, before it answers).
    public func refreshForScrape() {
        for refresh in scrapes.withLock({ $0 }) { refresh() }
    }

    // MARK: A service's own

    /// A counter named `name` (`stepcompass_…_total`) with the `service` label and `dimensions`: make it once, keep it.
    public func counter(_ name: String, _ dimensions: [(String, String)] = []) -> Counter {
        Counter(label: name, dimensions: [("service", service)] + dimensions)
    }

    /// A counter named `name` with the `service` label and `label` = `value`, made at its first use and kept: for a
    /// label with few values known only when they occur (an error code, an outcome, a topic kind).
    public func counter(_ name: String, _ label: String, _ value: String) -> Counter {
        labelled.withLock { counters in
            let key = "\(name)|\(label)|\(value)"
            if let counter = counters[key] { return counter }
            let counter = Counter(label: name, dimensions: [("service", service), (label, value)])
            counters[key] = counter
            return counter
        }
    }

    /// The counter named `name` with the `service` label and `kind` = the topic's kind (``Topics/kind(of:)``): for
    /// per-message counts, a topic's counter is remembered, so its kind is parsed once.
    public func counter(_ name: String, kindOf topic: String) -> Counter {
        if let counter = byTopic.withLock({ $0[name]?[topic] }) { return counter }
        let counter = counter(name, "kind", topics.kind(of: topic))
        byTopic.withLock { cache in
            if cache[name, default: [:]].count < Self.topicCacheLimit { cache[name, default: [:]][topic] = counter }
        }
        return counter
    }

    /// A gauge named `name` with the `service` label and `dimensions`: make it once, keep it.
    public func gauge(_ name: String, _ dimensions: [(String, String)] = []) -> Gauge {
        Gauge(label: name, dimensions: [("service", service)] + dimensions)
    }

    /// A histogram of durations (`stepcompass_…_seconds`) with the `service` label and `dimensions`: make it once,
    /// keep it.
    public func timer(_ name: String, _ dimensions: [(String, String)] = []) -> Metrics.Timer {
        Metrics.Timer(label: name, dimensions: [("service", service)] + dimensions, preferredDisplayUnit: .seconds)
    }

    // MARK: The handling timers

    private func handlingTimer(topic: String) -> Metrics.Timer {
        handling.withLock { cache in
            if let timer = cache.byTopic[topic] { return timer }
            let timer = Self.timer(kind: topics.kind(of: topic), in: &cache.byKind, service: service)
            if cache.byTopic.count < Self.topicCacheLimit { cache.byTopic[topic] = timer }
            return timer
        }
    }

    private func handlingTimer(kind: String) -> Metrics.Timer {
        handling.withLock { Self.timer(kind: kind, in: &$0.byKind, service: service) }
    }

    private static func timer(kind: String, in timers: inout [String: Metrics.Timer], service: String) -> Metrics.Timer {
        if let timer = timers[kind] { return timer }
        let timer = Metrics.Timer(
            label: "stepcompass_message_handling_seconds", dimensions: [("service", service), ("kind", kind)],
            preferredDisplayUnit: .seconds)
        timers[kind] = timer
        return timer
    }
}
