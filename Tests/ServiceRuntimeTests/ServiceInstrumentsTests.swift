import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import Metrics
import ServiceRuntime
import StepCompassTesting
import Testing

/// Every service's metrics from the runtime, in process over the in-memory bus: handling time by kind, devices
/// tracked, the subscriptions' backlog and drops, the scrape hooks. The registry is the process's (other tests add
/// to it in parallel), so each test has a service label of its own.
@Suite("Metrics: handling time, devices, subscription buffers")
struct ServiceInstrumentsTests {
    static let logger = Logger(label: "test.instruments", factory: { _ in SwiftLogNoOpLogHandler() })

    static func scrape() -> PrometheusText {
        PrometheusText(ServiceMetrics.text())
    }

    @Test("message handling is a histogram by topic kind, never by device; devices tracked is a gauge")
    func handlingAndDevices() {
        ServiceMetrics.bootstrap()
        let service = "instruments-handling"
        let instruments = ServiceInstruments(service: service, topics: Topics())
        #expect(instruments.isEnabled)
        let start = ContinuousClock.now - .milliseconds(3)
        for device in ["phone-1", "phone-2", "phone-1"] {
            instruments.handled(BusMessage(topic: "stepcompass/\(device)/imu", text: "{}"), since: start)
        }
        instruments.handled(BusMessage(topic: "stepcompass/markers/nearest", text: "{}"), since: start)
        instruments.handled(kind: "cmd/walk", since: .now)
        instruments.devicesTracked(2)
        let text = ServiceMetrics.text()
        let metrics = PrometheusText(text)
        let imu = ["service": service, "kind": "imu"]
        #expect(metrics.value("stepcompass_message_handling_seconds_count", imu) == 3)
        #expect((metrics.value("stepcompass_message_handling_seconds_sum", imu) ?? 0) >= 0.009)
        // 3 ms is above the 2.5 ms bucket and within the 5 ms one.
        #expect(metrics.value("stepcompass_message_handling_seconds_bucket", imu.merging(["le": "0.0025"]) { $1 }) == 0)
        #expect(metrics.value("stepcompass_message_handling_seconds_bucket", imu.merging(["le": "+Inf"]) { $1 }) == 3)
        #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "markers/nearest"]) == 1)
        #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "cmd/walk"]) == 1)
        #expect(metrics.value("stepcompass_devices_tracked", ["service": service]) == 2)
        #expect(!text.contains("phone-1"), "a device id became a label")
    }

    @Test("instruments made before swift-metrics is bootstrapped, or disabled, record nothing")
    func disabled() {
        let instruments = ServiceInstruments(service: "instruments-disabled", topics: Topics(), enabled: false)
        instruments.handled(BusMessage(topic: "stepcompass/phone-1/imu", text: "{}"), since: .now)
        instruments.devicesTracked(5)
        let metrics = Self.scrape()
        #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": "instruments-disabled"]) == nil)
        #expect(metrics.value("stepcompass_devices_tracked", ["service": "instruments-disabled"]) == nil)
    }

    @Test("a scrape sets the subscriptions' backlog and counts the messages a full buffer dropped")
    func subscriptionBuffers() async throws {
        let service = "instruments-buffers"
        let broker = InMemoryBroker()
        let bus = InMemoryBus(broker: broker, clientID: service, subscriptionBuffer: 3)
        let runtime = BusRuntime(service: service, topics: Topics(), logger: Self.logger, bus: bus, metrics: ("127.0.0.1", 0))
        try await bus.connect(timeout: .seconds(1))
        let subscription = try await bus.subscribe(to: TopicFilter("stepcompass/+/steps"))
        let publisher = InMemoryBus(broker: broker, clientID: "\(service)-publisher", cleanStart: true)
        publisher.connect()
        for count in 1...5 {
            try await publisher.publish(BusMessage(topic: "stepcompass/phone-1/steps", text: #"{"steps": \#(count)}"#, qos: .atLeastOnce))
        }
        #expect(subscription.bufferedCount == 3)
        #expect(subscription.droppedCount == 2)
        #expect(bus.subscriptionBuffers == SubscriptionBufferStatistics(subscriptions: 1, buffered: 3, held: 0, droppedFull: 2, droppedUnmatched: 0))

        runtime.refreshMetrics()
        var metrics = Self.scrape()
        #expect(metrics.value("stepcompass_subscription_buffered_messages", ["service": service]) == 3)
        #expect(metrics.value("stepcompass_subscription_held_messages", ["service": service]) == 0)
        #expect(metrics.value("stepcompass_subscription_dropped_messages_total", ["service": service, "reason": "buffer_full"]) == 2)
        #expect(metrics.value("stepcompass_subscription_dropped_messages_total", ["service": service, "reason": "unmatched"]) == 0)
        #expect(metrics.value("stepcompass_service_info", ["service": service]) == 1)

        // Reading drains the backlog; a second scrape adds only the new drops.
        _ = await subscription.nextBatch(limit: 10)
        for count in 6...10 {
            try await publisher.publish(BusMessage(topic: "stepcompass/phone-1/steps", text: #"{"steps": \#(count)}"#, qos: .atLeastOnce))
        }
        runtime.refreshMetrics()
        metrics = Self.scrape()
        #expect(metrics.value("stepcompass_subscription_buffered_messages", ["service": service]) == 3)
        #expect(metrics.value("stepcompass_subscription_dropped_messages_total", ["service": service, "reason": "buffer_full"]) == 4)
        // A lost connection keeps the drops counted (the in-memory bus makes a router per connection).
        bus.simulateConnectionLoss()
        runtime.refreshMetrics()
        metrics = Self.scrape()
        #expect(metrics.value("stepcompass_subscription_buffered_messages", ["service": service]) == 0)
        #expect(metrics.value("stepcompass_subscription_dropped_messages_total", ["service": service, "reason": "buffer_full"]) == 4)
        publisher.disconnect()
    }

    @Test("a service's scrape hooks run before a scrape, and its own metrics carry the service label")
    func scrapeHooks() async throws {
        let service = "instruments-hooks"
        let bus = InMemoryBus(broker: InMemoryBroker(), clientID: service)
        let runtime = BusRuntime(service: service, topics: Topics(), logger: Self.logger, bus: bus, metrics: ("127.0.0.1", 0))
        let gauge = runtime.context.metrics.gauge("stepcompass_instruments_test_value")
        let counter = runtime.context.metrics.counter("stepcompass_instruments_test_total", [("outcome", "ok")])
        let calls = LockedCounter()
        runtime.context.metrics.onScrape {
            calls.add()
            gauge.record(calls.value * 10)
        }
        counter.increment(by: 2)
        runtime.refreshMetrics()
        runtime.refreshMetrics()
        let metrics = Self.scrape()
        #expect(calls.value == 2)
        #expect(metrics.value("stepcompass_instruments_test_value", ["service": service]) == 20)
        #expect(metrics.value("stepcompass_instruments_test_total", ["service": service, "outcome": "ok"]) == 2)
    }
}

/// A count a `@Sendable` closure can add to.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
