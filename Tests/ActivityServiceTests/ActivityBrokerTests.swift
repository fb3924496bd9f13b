import ActivityService
import Bus
import BusTesting
import Configuration
import Foundation
import Logging
import MosquittoBus
import ServiceLifecycle
import ServiceRuntime
import StepCompassTesting
import Testing

/// The activity service built by `buildActivity` over a real `MosquittoBus` and mosquitto, on a temporary SQLite
/// folder: steps in, the retained `activity` message out, and a history request answered over MQTT 5.
@Suite("Activity service on a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct ActivityBrokerTests {
    private static let logger = Logger(label: "test.activity", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs the service over MQTT 5 on `port` with its SQLite file in `folder` for the duration of `body`, then
    /// shuts it down gracefully (whether `body` returns or throws).
    private func withActivity<T: Sendable>(port: Int, folder: URL, _ body: () async throws -> T) async throws -> T {
        let statuses = ServiceStatus.messages(service: "activity", topics: Topics(), startedAt: Date())
        let bus = try MosquittoBus(
            configuration: MosquittoConfiguration(
                host: "127.0.0.1", port: port, clientID: "stepcompass-activity-\(UUID().uuidString.prefix(8))",
                will: statuses.offline),
            logger: Self.logger)
        let config = ConfigReader(
            provider: InMemoryProvider(values: [
                "data.dir": .init(.string(folder.path), isSecret: false),
                "publish.interval.ms": 0,
                // The test's July data must outlive the start-up retention of minute buckets.
                "retain.minutes.days": 100_000,
            ]))
        let group = try buildActivity(config: config, logger: Self.logger, bus: bus)
        return try await withRunningGroup(group, body)
    }

    @Test("steps over mosquitto become a retained activity message; a history request is answered over MQTT 5")
    func stepsActivityAndHistory() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("activity-broker-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let probe = try await harness.makeClient(id: "probe-activity", cleanStart: true, will: nil)
            let status = try await probe.subscribe(to: TopicFilter("stepcompass/services/activity/status"), qos: .atLeastOnce)
            try await probe.publish(
                BusMessage(
                    topic: "stepcompass/walker-1/permissions", text: #"{"motion": "authorized", "timeZone": "Europe/Berlin"}"#,
                    qos: .atLeastOnce, retain: true))
            try await withActivity(port: broker.port, folder: folder) {
                let online = await status.first { $0.text.contains(#""state":"online""#) }
                #expect(online != nil, "the service never said online")

                let activity = try await probe.subscribe(to: TopicFilter("stepcompass/+/activity"), qos: .atLeastOnce)
                for (steps, time) in [(100, "2026-07-01T10:00:00.000Z"), (160, "2026-07-01T10:01:00.000Z"), (250, "2026-07-01T11:30:00.000Z")] {
                    try await probe.publish(
                        BusMessage(
                            topic: "stepcompass/walker-1/steps", text: #"{"steps": \#(steps), "timestamp": "\#(time)"}"#, qos: .atLeastOnce))
                }
                let live = await activity.first { message in
                    message.topic == "stepcompass/walker-1/activity"
                        && (try? JSONDecoder().decode(ActivityMessage.self, from: message.payload))?.today == 250
                }
                #expect(live != nil, "no activity message with today == 250")

                // A client that connects later gets it from the broker: QoS 1, retained.
                let late = try await harness.makeClient(id: "probe-late", cleanStart: true, will: nil)
                let replay = try await late.subscribe(to: TopicFilter("stepcompass/walker-1/activity"), qos: .atLeastOnce)
                let retained = try #require(await replay.first(within: .seconds(10)) { _ in true })
                #expect(retained.retain)
                let message = try JSONDecoder().decode(ActivityMessage.self, from: retained.payload)
                #expect(message.today == 250)
                #expect(message.days == [0, 0, 0, 0, 0, 0, 250])
                #expect(message.weekTotal == 250)
                #expect(message.timeZone == "Europe/Berlin")
                #expect(message.authorization == "authorized")
                #expect(message.suggestion != nil)
                #expect(message.guidance == nil)
                await late.close()

                // History over MQTT 5: response topic and correlation data, hours in Berlin (UTC+2 in July).
                let request = #"{"device": "walker-1", "from": "2026-07-01T00:00:00Z", "to": "2026-07-02T00:00:00Z", "granularity": "hour"}"#
                let reply = try await probe.request(
                    BusMessage(topic: "stepcompass/activity/history", text: request, qos: .atLeastOnce),
                    replyTopic: "stepcompass/replies/probe-activity/history", timeout: .seconds(10))
                let object = try #require(try JSONSerialization.jsonObject(with: reply.payload) as? [String: Any])
                #expect(object["device"] as? String == "walker-1")
                #expect(object["granularity"] as? String == "hour")
                #expect(object["timeZone"] as? String == "Europe/Berlin")
                let buckets = try #require(object["buckets"] as? [[String: Any]])
                #expect(buckets.map { $0["start"] as? String } == ["2026-07-01T10:00:00.000Z", "2026-07-01T11:00:00.000Z"])
                #expect(buckets.map { $0["steps"] as? Int } == [160, 90])

                // A bad request is answered with an error reply, not dropped.
                let bad = try await probe.request(
                    BusMessage(
                        topic: "stepcompass/activity/history",
                        text: #"{"device": "walker-1", "from": "2026-07-01T00:00:00Z", "to": "2026-07-02T00:00:00Z", "granularity": "week"}"#,
                        qos: .atLeastOnce),
                    replyTopic: "stepcompass/replies/probe-activity/history", timeout: .seconds(10))
                let error = try #require(try JSONSerialization.jsonObject(with: bad.payload) as? [String: Any])
                #expect((error["error"] as? [String: Any])?["code"] as? String == "badRequest")
            }
            let offline = await status.first { $0.text.contains(#""state":"offline""#) }
            #expect(offline != nil, "the service did not say offline when it stopped")
            await probe.close()
        }
    }
}
