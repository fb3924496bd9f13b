import ActivityKit
import ActivityService
import ActivityStore
import Bus
import BusTesting
import Configuration
import Foundation
import InMemoryBus
import Logging
import ServiceLifecycle
import ServiceRuntime
import Testing

/// An in-memory broker, a probe client, and the activity service built by `buildActivity` on a temporary SQLite file.
final class ActivityFixture: @unchecked Sendable {
    let broker = InMemoryBroker()
    let probe: InMemoryBus
    let folder: URL
    let activity: BusSubscription
    let errors: BusSubscription
    private var group: ServiceGroup?
    private var running: Task<Void, any Error>?

    init() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("activity-service-\(UUID().uuidString)")
        probe = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
        probe.connect()
        activity = try await probe.subscribe(to: TopicFilter("stepcompass/+/activity"))
        errors = try await probe.subscribe(to: TopicFilter("stepcompass/errors/activity"))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Starts the service (again) on the same database; returns once it is online. With `clock`, the service runs on
    /// it (a manual one to make devices idle by hand).
    func start(_ values: [AbsoluteConfigKey: ConfigValue] = [:], clock: ServiceClock? = nil) async throws {
        let status = try await probe.subscribe(to: TopicFilter("stepcompass/services/activity/status"))
        var all: [AbsoluteConfigKey: ConfigValue] = [
            "data.dir": .init(.string(folder.path), isSecret: false),
            "publish.interval.ms": 0,
            // The tests' July data must outlive the start-up retention.
            "retain.minutes.days": 100_000,
        ]
        for (key, value) in values { all[key] = value }
        let config = ConfigReader(provider: InMemoryProvider(values: all))
        let bus = InMemoryBus(broker: broker, clientID: "stepcompass-activity", cleanStart: false)
        let logger = Logger(label: "test.activity")
        let group: ServiceGroup
        if let clock {
            let configuration = ActivityConfiguration(config: config)
            group = try buildActivity(
                config: config, logger: logger, bus: bus, configuration: configuration,
                store: makeActivityStore(configuration: configuration, logger: logger), clock: clock)
        } else {
            group = try buildActivity(config: config, logger: logger, bus: bus)
        }
        self.group = group
        running = Task { try await group.run() }
        var online = false
        // Generous: on a loaded 2-core machine the test process may wait its turn for a long time.
        let deadline = ContinuousClock.now + .seconds(90)
        while !online, let message = await status.next(before: deadline) {
            online = message.text.contains("online")
        }
        try await probe.unsubscribe(status)
        try #require(online, "the activity service did not say online within 90 s")
    }

    func stop() async throws {
        await group?.triggerGracefulShutdown()
        try await running?.value
        group = nil
    }

    func publish(_ topic: String, _ json: String, retain: Bool = false) async throws {
        try await probe.publish(BusMessage(topic: topic, text: json, qos: .atLeastOnce, retain: retain))
    }

    /// The next `activity` message of `device` that satisfies `condition`.
    func activity(_ device: String, timeout: Duration = .seconds(60), where condition: (ActivityMessage) -> Bool = { _ in true }) async throws
        -> ActivityMessage?
    {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            guard let message = await activity.next(timeout: ContinuousClock.now.duration(to: deadline)) else { return nil }
            guard message.topic == "stepcompass/\(device)/activity" else { continue }
            let decoded = try JSONDecoder().decode(ActivityMessage.self, from: message.payload)
            if condition(decoded) { return decoded }
        }
        return nil
    }
}

@Suite("buildActivity over the in-memory bus, on SQLite")
struct ActivityServiceTests {
    @Test("online; steps become today's count and a week; a redelivered count changes nothing; offline when stopped")
    func lifecycle() async throws {
        let fixture = try await ActivityFixture()
        try await fixture.start()
        #expect(fixture.broker.retainedMessage(on: "stepcompass/services/activity/status")?.text.contains("online") == true)
        try await fixture.publish("stepcompass/phone/steps", #"{"steps": 120, "timestamp": "2026-07-01T10:00:00.000Z"}"#)
        try await fixture.publish("stepcompass/phone/steps", #"{"steps": 180, "timestamp": "2026-07-01T10:00:30.000Z"}"#)
        try await fixture.publish("stepcompass/phone/steps", #"{"steps": 180, "timestamp": "2026-07-01T10:00:31.000Z"}"#)
        let message = try #require(await fixture.activity("phone") { $0.today == 180 })
        #expect(message.days == [0, 0, 0, 0, 0, 0, 180])
        #expect(message.weekTotal == 180)
        #expect(message.band == "sedentary")
        #expect(message.cadence == 60)  // 60 steps in the last minute (the first count is not a cadence)
        #expect(message.authorization == "unknown")
        #expect(message.timeZone == "UTC")
        #expect(message.suggestion?.playlist.id == "stroll")  // walking at 60 a minute
        #expect(fixture.broker.retainedMessage(on: "stepcompass/phone/activity") != nil)
        try await fixture.stop()
        #expect(fixture.broker.retainedMessage(on: "stepcompass/services/activity/status")?.text.contains("offline") == true)
    }

    @Test("a device that stops sending falls back to a cadence of 0 once a cadence window has passed")
    func cadenceFallsBack() async throws {
        let fixture = try await ActivityFixture()
        try await fixture.start(["cadence.window.ms": 2_000])
        try await fixture.publish("stepcompass/walker/steps", #"{"steps": 100, "timestamp": "2026-07-01T10:00:00.000Z"}"#)
        try await fixture.publish("stepcompass/walker/steps", #"{"steps": 102, "timestamp": "2026-07-01T10:00:01.000Z"}"#)
        let walking = try #require(await fixture.activity("walker") { $0.today == 102 })
        // 2 steps in a 2 s window: 60 a minute.
        #expect(walking.cadence == 60)
        let stopped = try #require(await fixture.activity("walker") { $0.cadence == 0 }, "no activity message with a cadence of 0")
        #expect(stopped.today == 102)
        // Walking again: the cadence comes back with the next continuing count.
        try await fixture.publish("stepcompass/walker/steps", #"{"steps": 104, "timestamp": "2026-07-01T10:00:10.000Z"}"#)
        try await fixture.publish("stepcompass/walker/steps", #"{"steps": 106, "timestamp": "2026-07-01T10:00:11.000Z"}"#)
        let again = try #require(await fixture.activity("walker") { $0.today == 106 && ($0.cadence ?? 0) > 0 })
        #expect(again.cadence == 60)
        try await fixture.stop()
    }

    @Test("a restart keeps the history: a repeated count after it adds nothing, a higher one only its difference")
    func restart() async throws {
        let fixture = try await ActivityFixture()
        try await fixture.start()
        try await fixture.publish("stepcompass/walker/steps", #"{"steps": 1000, "timestamp": "2026-07-01T08:00:00.000Z"}"#)
        _ = try #require(await fixture.activity("walker") { $0.today == 1000 })
        try await fixture.stop()
        // Sent while the service is down: queued for its persistent session.
        try await fixture.publish("stepcompass/walker/steps", #"{"steps": 1000, "timestamp": "2026-07-01T08:00:00.000Z"}"#)
        try await fixture.publish("stepcompass/walker/steps", #"{"steps": 1500, "timestamp": "2026-07-01T09:00:00.000Z"}"#)
        try await fixture.start()
        let message = try #require(await fixture.activity("walker") { $0.today == 1500 })
        #expect(message.weekTotal == 1500)
        try await fixture.stop()
    }

    @Test("steps followed by permissions in one batch (queued while the service was down) keep their steps and cadence")
    func stepsThenPermissionsInOneBatch() async throws {
        let fixture = try await ActivityFixture()
        try await fixture.start()
        try await fixture.publish("stepcompass/walker/steps", #"{"steps": 1000, "timestamp": "2026-07-01T08:00:00.000Z"}"#)
        _ = try #require(await fixture.activity("walker") { $0.today == 1000 })
        try await fixture.stop()
        // Queued for the persistent session: handled as one batch at the start.
        try await fixture.publish("stepcompass/walker/steps", #"{"steps": 1500, "timestamp": "2026-07-01T09:00:00.000Z"}"#)
        try await fixture.publish("stepcompass/walker/permissions", #"{"motion": "authorized"}"#)
        try await fixture.start()
        let message = try #require(await fixture.activity("walker") { $0.authorization == "authorized" && $0.today == 1500 })
        #expect(message.weekTotal == 1500)
        try await fixture.stop()
    }

    @Test("authorization: withheld with guidance until authorized")
    func authorization() async throws {
        let fixture = try await ActivityFixture()
        try await fixture.start()
        try await fixture.publish("stepcompass/p1/permissions", #"{"motion": "notDetermined", "location": "authorized"}"#, retain: true)
        let withheld = try #require(await fixture.activity("p1") { $0.authorization == "notDetermined" })
        #expect(withheld.suggestion == nil)
        #expect(withheld.guidance?.contains("Allow motion access") == true)
        try await fixture.publish("stepcompass/p1/permissions", #"{"motion": "denied"}"#, retain: true)
        #expect(try await fixture.activity("p1") { $0.authorization == "denied" }?.guidance?.contains("Settings") == true)
        try await fixture.publish("stepcompass/p1/permissions", #"{"motion": "unavailable"}"#, retain: true)
        #expect(try await fixture.activity("p1") { $0.authorization == "unavailable" }?.guidance?.contains("no step counter") == true)
        try await fixture.publish("stepcompass/p1/permissions", #"{"motion": "authorized"}"#, retain: true)
        let allowed = try #require(await fixture.activity("p1") { $0.authorization == "authorized" })
        #expect(allowed.suggestion?.playlist.id == "relaxing")
        #expect(allowed.guidance == nil)
        try await fixture.stop()
    }

    @Test("a device's own time zone decides its days; retained permissions are read before queued steps")
    func timeZone() async throws {
        let fixture = try await ActivityFixture()
        try await fixture.publish("stepcompass/berlin/permissions", #"{"motion": "authorized", "timeZone": "Europe/Berlin"}"#, retain: true)
        try await fixture.start()
        // 22:30Z on 1 July is 00:30 on 2 July in Berlin: a new day.
        try await fixture.publish("stepcompass/berlin/steps", #"{"steps": 300, "timestamp": "2026-07-01T21:30:00.000Z"}"#)
        try await fixture.publish("stepcompass/berlin/steps", #"{"steps": 400, "timestamp": "2026-07-01T22:30:00.000Z"}"#)
        let message = try #require(await fixture.activity("berlin") { $0.weekTotal == 400 })
        #expect(message.timeZone == "Europe/Berlin")
        #expect(message.days.suffix(2) == [300, 100])
        try await fixture.stop()
    }

    @Test("a time zone that arrives after the steps keeps them in the week")
    func lateTimeZone() async throws {
        let fixture = try await ActivityFixture()
        try await fixture.start()
        try await fixture.publish("stepcompass/late/steps", #"{"steps": 400, "timestamp": "2026-07-01T10:00:00.000Z"}"#)
        _ = try #require(await fixture.activity("late") { $0.today == 400 })
        try await fixture.publish("stepcompass/late/permissions", #"{"motion": "authorized", "timeZone": "Europe/Berlin"}"#, retain: true)
        try await fixture.publish("stepcompass/late/steps", #"{"steps": 450, "timestamp": "2026-07-01T10:05:00.000Z"}"#)
        let message = try #require(await fixture.activity("late") { $0.timeZone == "Europe/Berlin" && $0.weekTotal == 450 })
        #expect(message.today == 450)
        try await fixture.stop()
    }

    @Test("history: MQTT 5 request/response and the 3.1.1 replyTo fallback; a bad request gets an error reply")
    func history() async throws {
        let fixture = try await ActivityFixture()
        try await fixture.start()
        try await fixture.publish("stepcompass/h1/steps", #"{"steps": 10, "timestamp": "2026-07-01T10:00:10.000Z"}"#)
        try await fixture.publish("stepcompass/h1/steps", #"{"steps": 25, "timestamp": "2026-07-01T10:01:10.000Z"}"#)
        try await fixture.publish("stepcompass/h1/steps", #"{"steps": 40, "timestamp": "2026-07-01T11:05:00.000Z"}"#)
        let request = #"{"device": "h1", "from": "2026-07-01T00:00:00.000Z", "to": "2026-07-02T00:00:00.000Z", "granularity": "minute"}"#
        let reply = try await fixture.probe.request(
            BusMessage(topic: "stepcompass/activity/history", text: request, qos: .atLeastOnce), replyTopic: "stepcompass/replies/test")
        let object = try #require(try JSONSerialization.jsonObject(with: reply.payload) as? [String: Any])
        #expect(object["device"] as? String == "h1")
        #expect(object["granularity"] as? String == "minute")
        #expect(object["timeZone"] as? String == "UTC")
        let buckets = try #require(object["buckets"] as? [[String: Any]])
        #expect(buckets.map { $0["start"] as? String } == ["2026-07-01T10:00:00.000Z", "2026-07-01T10:01:00.000Z", "2026-07-01T11:05:00.000Z"])
        #expect(buckets.map { $0["steps"] as? Int } == [10, 15, 15])

        let replies = try await fixture.probe.subscribe(to: TopicFilter("stepcompass/replies/legacy"))
        try await fixture.publish(
            "stepcompass/activity/history",
            #"{"device": "h1", "from": "2026-07-01T00:00:00Z", "to": "2026-07-02T00:00:00Z", "granularity": "hour", "replyTo": "stepcompass/replies/legacy", "correlationId": 7}"#
        )
        let legacy = try #require(await replies.next(timeout: .seconds(10)))
        let hours = try #require(try JSONSerialization.jsonObject(with: legacy.payload) as? [String: Any])
        #expect(hours["correlationId"] as? Int == 7)
        #expect((hours["buckets"] as? [[String: Any]])?.map { $0["steps"] as? Int } == [25, 15])

        try await fixture.publish(
            "stepcompass/activity/history",
            #"{"device": "h1", "from": "2026-07-02T00:00:00Z", "to": "2026-07-01T00:00:00Z", "granularity": "week", "replyTo": "stepcompass/replies/legacy"}"#
        )
        let failure = try #require(await replies.next(timeout: .seconds(10)))
        let error = try #require((try JSONSerialization.jsonObject(with: failure.payload) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["code"] as? String == "badRequest")
        #expect((error["message"] as? String)?.contains("granularity") == true)
        #expect(await fixture.errors.next(timeout: .seconds(10)) != nil)
        try await fixture.stop()
    }

    @Test(
        "bad input is reported on errors/activity and dropped; the service carries on",
        arguments: [
            #"{"steps": "many"}"#, #"{"steps": -1}"#, #"{"steps": 1.5}"#, #"{"steps": 3, "timestamp": "yesterday"}"#, "not json",
        ])
    func badInput(_ payload: String) async throws {
        let fixture = try await ActivityFixture()
        try await fixture.start()
        try await fixture.publish("stepcompass/bad/steps", payload)
        let report = try #require(await fixture.errors.next(timeout: .seconds(10)))
        #expect(report.text.contains("stepcompass/bad/steps"))
        try await fixture.publish("stepcompass/bad/steps", #"{"steps": 5}"#)
        #expect(try await fixture.activity("bad") { $0.today == 5 } != nil)
        try await fixture.stop()
    }

    @Test("a configuration that cannot be used is refused when building")
    func badConfiguration() async throws {
        let bus = InMemoryBus(broker: InMemoryBroker(), clientID: "x")
        for values: [AbsoluteConfigKey: ConfigValue] in [
            ["time.zone": "Mars/Olympus"], ["retain.minutes.days": 0],
            ["playlists": "/nonexistent/playlists.json"], ["cadence.window.ms": 10],
        ] {
            #expect(throws: (any Error).self) {
                var all = values
                all["data.dir"] = .init(
                    .string(FileManager.default.temporaryDirectory.appendingPathComponent("activity-unused-\(UUID().uuidString)").path),
                    isSecret: false)
                _ = try buildActivity(config: ConfigReader(provider: InMemoryProvider(values: all)), logger: Logger(label: "test"), bus: bus)
            }
        }
    }
}
