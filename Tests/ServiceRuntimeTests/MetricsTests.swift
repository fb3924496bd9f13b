import Bus
import BusTesting
import Configuration
import Foundation
import Logging
import MosquittoBus
import ServiceLifecycle
import ServiceRuntime
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Metrics: topic kinds, and GET /metrics of a service on a real broker")
struct MetricsTests {
    @Test("topic kinds leave the device out and stay few")
    func kinds() {
        let topics = Topics()
        #expect(topics.kind(of: "stepcompass/phone-1/imu") == "imu")
        #expect(topics.kind(of: "stepcompass/phone-2/cmd/walk") == "cmd/walk")
        #expect(topics.kind(of: "stepcompass/phone-2/journal/photo") == "journal/photo")
        #expect(topics.kind(of: "stepcompass/errors/position") == "errors")
        #expect(topics.kind(of: "stepcompass/services/compass/status") == "services/status")
        #expect(topics.kind(of: "stepcompass/markers/nearest") == "markers/nearest")
        #expect(topics.kind(of: "stepcompass/journal/walks") == "journal/walks")
        #expect(topics.kind(of: "stepcompass/replies/client-7/abc") == "replies")
        #expect(topics.kind(of: "stepcompass/phone-1/unknown") == "other")
        // Devices may be called activity, journal or replies (only markers, services, errors, simulation are reserved).
        #expect(topics.kind(of: "stepcompass/activity/steps") == "steps")
        #expect(topics.kind(of: "stepcompass/journal/location") == "location")
        #expect(topics.kind(of: "stepcompass/replies/heading") == "heading")
        #expect(topics.kind(of: "stepcompass/activity/history") == "activity/history")
        #expect(topics.kind(of: "elsewhere/phone-1/imu") == "other")
    }

    /// A service that rejects every message it gets on `stepcompass/+/steps`.
    struct Rejecter: Service {
        let context: BusServiceContext
        func run() async throws {
            try await context.serve {
                let subscription = try await context.bus.subscribe(to: TopicFilter("stepcompass/+/steps"))
                try await context.ready()
                for await message in subscription { await context.errors.reject(message, reason: "test") }
            }
        }
    }

    @Test(
        "a service with metrics.port serves its traffic, rejections and connection in the Prometheus text format",
        .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
    func endpoint() async throws {
        try await withBroker { broker in
            let port = try MosquittoBrokerProcess.freePort()
            let topics = Topics()
            var mqtt = MosquittoConfiguration(host: "127.0.0.1", port: broker.port, clientID: "metrics-test-\(UUID().uuidString.prefix(6))")
            ServiceMetrics.bootstrap()
            mqtt.observer = BusTrafficMetrics(service: "metricstest", topics: topics)
            let bus = try MosquittoBus(configuration: mqtt, logger: Logger(label: "test.metrics"))
            let config = ConfigReader(provider: InMemoryProvider(values: ["metrics.port": .init(.int(port), isSecret: false)]))
            let runtime = BusRuntime(service: "metricstest", config: config, logger: Logger(label: "test.metrics"), bus: bus)
            #expect(runtime.metrics?.port == port)
            let group = runtime.group([Rejecter(context: runtime.context)])
            let running = Task { try await group.run() }
            let probe = try MosquittoBus(
                configuration: MosquittoConfiguration(host: "127.0.0.1", port: broker.port, clientID: "metrics-probe", cleanStart: true),
                logger: Logger(label: "test.metrics.probe"))
            try await probe.connect()
            let status = try await probe.subscribe(to: TopicFilter("stepcompass/services/metricstest/status"))
            #expect(await status.first { $0.text.contains("online") } != nil)
            let errors = try await probe.subscribe(to: TopicFilter("stepcompass/errors/metricstest"))
            for device in 1...3 { try await probe.publish(BusMessage(topic: "stepcompass/dev-\(device)/steps", text: "{}", qos: .atLeastOnce)) }
            _ = await errors.collect(3, timeout: .seconds(10))

            let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/metrics")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#"stepcompass_messages_received_total{service="metricstest",kind="steps"} 3"#), "\(text)")
            #expect(text.contains(#"stepcompass_rejected_inputs_total{service="metricstest",kind="steps"} 3"#))
            #expect(text.contains(#"stepcompass_messages_published_total{service="metricstest",kind="errors"} 3"#))
            #expect(text.contains(#"stepcompass_mqtt_connected{service="metricstest"} 1"#))
            #expect(text.contains(#"stepcompass_mqtt_connects_total{service="metricstest"} 1"#))
            #expect(!text.contains("dev-1"), "a device id became a label")
            await group.triggerGracefulShutdown()
            try await running.value
            await probe.disconnect()
        }
    }
}
