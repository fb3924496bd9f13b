import Bus
import Foundation
import InMemoryBus
import ServiceRuntime
import Testing

@testable import StepCompassClient

@Suite("stepcompass status: the services' retained statuses and the broker's")
struct StackStatusTests {
    static let now = Timestamp.parse("2026-11-22T10:15:30.000Z")!

    private func status(_ service: String, _ state: String, started: String = "2026-11-22T08:00:00.000Z") -> String {
        #"{"state":"\#(state)","service":"\#(service)","version":"0.1.0","startedAt":"\#(started)"}"#
    }

    private func publishAll(_ pair: InMemoryPair, except skipped: Set<String> = []) async throws {
        for service in StackStatus.services where !skipped.contains(service) {
            try await pair.publish("stepcompass/services/\(service)/status", status(service, "online"), retain: true)
        }
    }

    @Test("every service online: the table, uptimes from startedAt, allOnline")
    func allOnline() async throws {
        let pair = InMemoryPair()
        try await publishAll(pair)
        try await pair.publish("stepcompass/services/journal/status", status("journal", "online", started: "2026-11-20T10:15:00.000Z"), retain: true)
        try await pair.publish("$SYS/broker/version", "mosquitto version 2.0.11", retain: true)
        try await pair.publish("$SYS/broker/uptime", "11000 seconds", retain: true)
        try await pair.publish("$SYS/broker/clients/connected", "9", retain: true)
        let status = try await StackStatusReader(bus: pair.client, topics: pair.topics).read()
        #expect(status.allOnline)
        #expect(status.services.map(\.name) == StackStatus.services)
        #expect(
            status.lines(now: Self.now) == [
                "service    state   version  up since (UTC)       uptime",
                "sensors    online  0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "compass    online  0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "position   online  0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "markers    online  0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "dashboard  online  0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "bridge     online  0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "activity   online  0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "journal    online  0.1.0    2026-11-20 10:15:00  2 d",
                "",
                "8 of 8 services online",
                "broker: mosquitto version 2.0.11, up 3 h 3 min, 9 clients connected (this one included)",
            ])
    }

    @Test("offline, never seen, unreadable and cleared statuses; another service is listed after the stack's")
    func someNotOnline() async throws {
        let pair = InMemoryPair()
        try await publishAll(pair, except: ["position", "bridge", "journal"])
        try await pair.publish("stepcompass/services/compass/status", status("compass", "offline"), retain: true)
        try await pair.publish("stepcompass/services/bridge/status", "not json", retain: true)
        try await pair.publish("stepcompass/services/journal/status", status("journal", "online"), retain: true)
        try await pair.services.publish(BusMessage(topic: "stepcompass/services/journal/status", payload: Data(), qos: .atLeastOnce, retain: true))
        try await pair.publish("stepcompass/services/my-position/status", status("my-position", "online"), retain: true)
        let status = try await StackStatusReader(bus: pair.client, topics: pair.topics).read()
        #expect(!status.allOnline)
        #expect(status.notOnline.map(\.name) == ["compass", "position", "bridge", "journal"])
        #expect(
            status.lines(now: Self.now) == [
                "service      state              version  up since (UTC)       uptime",
                "sensors      online             0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "compass      offline            0.1.0    —                    —",
                "position     never seen         —        —                    —",
                "markers      online             0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "dashboard    online             0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "bridge       unreadable status  —        —                    —",
                "activity     online             0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "journal      never seen         —        —                    —",
                "my-position  online             0.1.0    2026-11-22 08:00:00  2 h 15 min",
                "",
                "5 of 9 services online; offline: compass; never seen: position, journal; unreadable status: bridge",
                "broker: no $SYS messages: its ACL keeps $SYS from this user (mosquitto then sends nothing) or it publishes none (sys_interval 0)",
            ])
    }

    @Test("--json: every service with its state, null for what is not known, and the broker")
    func json() async throws {
        let pair = InMemoryPair()
        try await publishAll(pair, except: ["position"])
        try await pair.publish("stepcompass/services/compass/status", status("compass", "offline"), retain: true)
        try await pair.publish("$SYS/broker/version", "mosquitto version 2.0.11", retain: true)
        let status = try await StackStatusReader(bus: pair.client, topics: pair.topics).read()
        let object = try #require(try JSONSerialization.jsonObject(with: status.json(now: Self.now)) as? [String: Any])
        #expect(object["allOnline"] as? Bool == false)
        let services = try #require(object["services"] as? [[String: Any]])
        #expect(services.map { $0["service"] as? String } == StackStatus.services)
        #expect(services[0]["state"] as? String == "online")
        #expect(services[0]["version"] as? String == "0.1.0")
        #expect(services[0]["startedAt"] as? String == "2026-11-22T08:00:00.000Z")
        #expect(services[0]["uptimeSeconds"] as? Int == 8_130)
        #expect(services[1]["state"] as? String == "offline")
        #expect(services[1]["uptimeSeconds"] is NSNull)
        #expect(services[2]["state"] as? String == "missing")
        #expect(services[2]["version"] is NSNull)
        let broker = try #require(object["broker"] as? [String: Any])
        #expect(broker["readable"] as? Bool == true)
        #expect(broker["version"] as? String == "mosquitto version 2.0.11")
        #expect(broker["uptimeSeconds"] is NSNull)
        #expect(broker["reason"] is NSNull)
    }

    @Test("a broker that refuses $SYS: the line says so")
    func refused() {
        let status = StackStatus(messages: [], topics: Topics(), brokerAccess: .refused("not authorised"))
        #expect(status.brokerLine == "broker: not allowed to read $SYS (not authorised): the broker's ACL keeps it from this user")
        #expect(status.services.allSatisfy { $0.state == .missing })
    }

    @Test("another topic prefix: only its statuses count")
    func prefix() async throws {
        let pair = InMemoryPair()
        try await publishAll(pair)
        let status = try await StackStatusReader(bus: pair.client, topics: Topics(prefix: "other")).read()
        #expect(status.services.allSatisfy { $0.state == .missing })
    }

    /// The window is an hour and the test's limit two minutes: passing means it ended on the sync marker.
    @Test("the read ends when the sync marker is back, not after the whole window", .timeLimit(.minutes(2)))
    func endsEarly() async throws {
        let pair = InMemoryPair()
        try await publishAll(pair)
        let status = try await StackStatusReader(bus: pair.client, topics: pair.topics, window: .seconds(3_600)).read()
        #expect(status.allOnline)
    }

    @Test(
        "lengths of time in their two largest units",
        arguments: [
            (0.4, "0 s"), (42, "42 s"), (60, "1 min"), (303, "5 min 3 s"), (3_600, "1 h"), (11_520, "3 h 12 min"),
            (86_400, "1 d"), (183_600, "2 d 3 h"), (-5, "0 s"),
        ])
    func spans(seconds: Double, text: String) {
        #expect(ClientText.span(seconds) == text)
    }
}
