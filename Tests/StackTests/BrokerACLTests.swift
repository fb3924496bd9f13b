import Bus
import BusTesting
import Foundation
import MosquittoBus
import Testing

/// The compose broker's configuration (`Config/mosquitto`: `secure.conf`, the tuning `stepcompass.conf` through
/// `include_dir` as compose loads it, the `acl`, and the passwords `compose/broker-entrypoint.sh` generates; see
/// ``SecureBroker``) on a real mosquitto, over plain MQTT and over WebSockets (as Sensor Logger's MQTT push connects):
/// each user may publish what the contract gives it and nothing else, every user reads `stepcompass/#`, what phones send
/// outside the root reaches only the bridge and the viewer (and OwnTracks the device), and anonymous clients and wrong
/// passwords are refused on both listeners.
@Suite("Broker ACL", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct BrokerACLTests {
    /// One publish: the user, the topic, whether the ACL lets it through, and whether it goes over WebSockets.
    struct Case: CustomStringConvertible {
        let user: String
        let topic: String
        let allowed: Bool
        var webSockets = false
        var description: String { "\(user) → \(topic)\(webSockets ? " over WebSockets" : "")" }
    }

    static func allow(_ user: String, _ topic: String, webSockets: Bool = false) -> Case {
        Case(user: user, topic: topic, allowed: true, webSockets: webSockets)
    }

    static func deny(_ user: String, _ topic: String, webSockets: Bool = false) -> Case {
        Case(user: user, topic: topic, allowed: false, webSockets: webSockets)
    }

    /// Every publish case (those of the former `scripts/check-broker-acl.sh`).
    static let cases: [Case] = [
        allow("sensors", "stepcompass/d1/steps"), allow("sensors", "stepcompass/d1/imu"), allow("sensors", "stepcompass/d1/location"),
        allow("sensors", "stepcompass/d1/permissions"), allow("sensors", "stepcompass/d1/simulation/truth"),
        allow("sensors", "stepcompass/services/sensors/status"), allow("sensors", "stepcompass/errors/sensors"),
        deny("sensors", "stepcompass/d1/heading"), deny("sensors", "stepcompass/services/compass/status"),
        deny("sensors", "stepcompass/d1/cmd/calibrate"),
        allow("compass", "stepcompass/d1/heading"), allow("compass", "stepcompass/d1/calibration"),
        allow("compass", "stepcompass/d1/bearing-lock"), allow("compass", "stepcompass/services/compass/status"),
        allow("compass", "stepcompass/errors/compass"), deny("compass", "stepcompass/d1/steps"), deny("compass", "stepcompass/d1/position"),
        deny("compass", "stepcompass/errors/position"),
        allow("position", "stepcompass/d1/position"), allow("position", "stepcompass/services/position/status"),
        allow("position", "stepcompass/services/position/sync"), deny("sensors", "stepcompass/services/position/sync"),
        allow("position", "stepcompass/errors/position"), deny("position", "stepcompass/d1/heading"),
        deny("position", "stepcompass/d1/cmd/reset-position"),
        allow("markers", "stepcompass/markers/status"), allow("markers", "stepcompass/markers/collection"),
        allow("markers", "stepcompass/d1/nearby"), allow("markers", "stepcompass/replies/client-7/abc"),
        allow("markers", "stepcompass/services/markers/status"), allow("markers", "stepcompass/errors/markers"),
        deny("markers", "stepcompass/markers/nearest"), deny("markers", "stepcompass/d1/position"),
        allow("dashboard", "stepcompass/d1/cmd/bearing-lock"), allow("dashboard", "stepcompass/d1/cmd/calibrate"),
        allow("dashboard", "stepcompass/d1/cmd/settings"), allow("dashboard", "stepcompass/d1/cmd/reset-position"),
        allow("dashboard", "stepcompass/markers/cmd/refresh"), allow("dashboard", "stepcompass/markers/nearest"),
        allow("dashboard", "stepcompass/activity/history"), deny("dashboard", "stepcompass/d1/activity"),
        allow("dashboard", "stepcompass/d1/cmd/walk"), allow("dashboard", "stepcompass/journal/walks"),
        deny("dashboard", "stepcompass/d1/journal"), deny("dashboard", "stepcompass/d1/journal/photo"),
        allow("dashboard", "stepcompass/services/dashboard/status"), allow("dashboard", "stepcompass/errors/dashboard"),
        allow("dashboard", "homeassistant/device/stepcompass_d1/config"), deny("compass", "homeassistant/device/stepcompass_d1/config"),
        deny("dashboard", "stepcompass/d1/steps"), deny("dashboard", "stepcompass/replies/x"), deny("dashboard", "stepcompass/markers/status"),
        allow("device", "stepcompass/phone-1/steps"), allow("device", "stepcompass/phone-1/imu"),
        allow("device", "stepcompass/phone-1/location"), allow("device", "stepcompass/phone-1/permissions"),
        allow("device", "stepcompass/phone-1/simulation/truth"), deny("device", "stepcompass/phone-1/heading"),
        deny("device", "stepcompass/services/sensors/status"), allow("device", "sensor-logger"), allow("device", "owntracks/alice/phone"),
        allow("device", "sensor-logger", webSockets: true), allow("device", "owntracks/alice/phone", webSockets: true),
        allow("device", "stepcompass/phone-1/imu", webSockets: true), allow("device", "stepcompass/phone-1/steps", webSockets: true),
        deny("device", "stepcompass/phone-1/heading", webSockets: true), deny("device", "sensor-logger/extra", webSockets: true),
        deny("device", "stepcompass/services/bridge/status"),
        allow("bridge", "stepcompass/phone-1/steps"), allow("bridge", "stepcompass/phone-1/imu"),
        allow("bridge", "stepcompass/phone-1/location"), allow("bridge", "stepcompass/phone-1/permissions"),
        allow("bridge", "stepcompass/services/bridge/status"), allow("bridge", "stepcompass/errors/bridge"),
        deny("bridge", "stepcompass/phone-1/simulation/truth"), deny("bridge", "stepcompass/phone-1/heading"),
        deny("bridge", "stepcompass/phone-1/position"), deny("bridge", "stepcompass/services/sensors/status"),
        deny("bridge", "sensor-logger"), deny("bridge", "owntracks/alice/phone"),
        allow("activity", "stepcompass/phone-1/activity"), allow("activity", "stepcompass/replies/client-7/history"),
        allow("activity", "stepcompass/services/activity/status"), allow("activity", "stepcompass/services/activity/sync"),
        allow("activity", "stepcompass/errors/activity"), deny("activity", "stepcompass/phone-1/steps"),
        deny("activity", "stepcompass/phone-1/position"), deny("activity", "stepcompass/activity/history"),
        deny("activity", "stepcompass/services/position/sync"), deny("sensors", "stepcompass/phone-1/activity"),
        deny("device", "stepcompass/phone-1/activity"),
        allow("journal", "stepcompass/phone-1/journal"), allow("journal", "stepcompass/phone-1/journal/photo"),
        allow("journal", "stepcompass/replies/client-7/walks"), allow("journal", "stepcompass/services/journal/status"),
        allow("journal", "stepcompass/services/journal/sync"), allow("journal", "stepcompass/errors/journal"),
        deny("journal", "stepcompass/phone-1/location"), deny("journal", "stepcompass/phone-1/position"),
        deny("journal", "stepcompass/phone-1/permissions"), deny("journal", "stepcompass/phone-1/steps"),
        deny("journal", "stepcompass/phone-1/cmd/walk"), deny("journal", "stepcompass/journal/walks"),
        deny("journal", "stepcompass/phone-1/activity"), deny("journal", "stepcompass/services/activity/status"),
        deny("journal", "stepcompass/services/activity/sync"), deny("activity", "stepcompass/services/journal/sync"),
        deny("activity", "stepcompass/phone-1/journal"), deny("sensors", "stepcompass/phone-1/journal/photo"),
        deny("device", "stepcompass/phone-1/journal"), deny("device", "stepcompass/phone-1/cmd/walk"),
        deny("device", "stepcompass/journal/walks"), deny("viewer", "stepcompass/phone-1/cmd/walk"),
        deny("viewer", "stepcompass/journal/walks"), deny("sensors", "sensor-logger"), deny("compass", "owntracks/alice/phone"),
        deny("viewer", "sensor-logger", webSockets: true), deny("viewer", "stepcompass/d1/steps"),
        deny("viewer", "stepcompass/services/viewer/status"),
    ]

    @Test("each user may publish what the contract gives it and nothing else, over MQTT and WebSockets")
    func publishCases() async throws {
        try await SecureBroker.with { broker in
            let viewer = try await broker.client("viewer")
            let filters = try ["stepcompass/#", "sensor-logger", "sensor-logger/extra", "owntracks/#", "homeassistant/#"].map {
                SubscriptionRequest(try TopicFilter($0))
            }
            let everything = try await viewer.subscribe(to: filters)
            var clients: [String: MosquittoBus] = [:]
            for (index, publish) in Self.cases.enumerated() {
                let payload = "case-\(index + 1)"
                // QoS 1, acknowledged: the broker has routed the message, or dropped it, before the next case.
                do {
                    if publish.webSockets {
                        let client = try WebSocketMQTTPublisher(
                            port: broker.webSocketPort, clientID: "acl-ws-\(index)", username: publish.user,
                            password: broker.password(publish.user))
                        try client.publishAcknowledged(topic: publish.topic, payload: Array(payload.utf8))
                        client.disconnect()
                    } else {
                        if clients[publish.user] == nil { clients[publish.user] = try await broker.client(publish.user) }
                        try await clients[publish.user]!.publish(BusMessage(topic: publish.topic, text: payload, qos: .atLeastOnce))
                    }
                } catch {
                    Issue.record("\(publish): could not connect or publish: \(error)")
                }
            }
            for client in clients.values { try await client.flush() }
            // The last message the viewer gets: everything let through before it has reached the viewer by then.
            let sensors = try await broker.client("sensors")
            try await sensors.publish(BusMessage(topic: "stepcompass/acl-check/steps", text: "end", qos: .atLeastOnce))
            var received = Set<String>()
            var ended = false
            while !ended, let message = await everything.next(timeout: .seconds(30)) {
                ended = message.topic == "stepcompass/acl-check/steps"
                received.insert("\(message.topic) \(message.text)")
            }
            #expect(ended, "the viewer never got the last message")
            for (index, publish) in Self.cases.enumerated() {
                let seen = received.contains("\(publish.topic) case-\(index + 1)")
                #expect(
                    seen == publish.allowed,
                    "\(publish): \(publish.allowed ? "refused, but the ACL should allow it" : "let through, but the ACL should refuse it")")
            }
            for client in Array(clients.values) + [viewer, sensors] { await client.disconnect() }
        }
    }

    @Test("every user reads stepcompass/#; what phones send outside the root only the bridge, the viewer and (OwnTracks) the device")
    func readers() async throws {
        try await SecureBroker.with { broker in
            let sensors = try await broker.client("sensors")
            try await sensors.publish(BusMessage(topic: "stepcompass/d1/permissions", text: "readable", qos: .atLeastOnce, retain: true))
            try await sensors.flush()
            for user in SecureBroker.users {
                let client = try await broker.client(user)
                let permissions = try await client.subscribe(to: "stepcompass/+/permissions")
                let got = await permissions.next(timeout: .seconds(10))
                #expect(got?.text == "readable", "\(user) cannot read stepcompass/# (got \(String(describing: got?.text)))")
                await client.disconnect()
            }
            try await sensors.publish(BusMessage(topic: "stepcompass/d1/permissions", payload: Data(), qos: .atLeastOnce, retain: true))

            let device = try await broker.client("device")
            try await device.publish(BusMessage(topic: "sensor-logger", text: "phone-body", qos: .atLeastOnce, retain: true))
            try await device.publish(BusMessage(topic: "owntracks/alice/phone", text: "phone-fix", qos: .atLeastOnce, retain: true))
            try await device.flush()
            let expected: [(user: String, reads: Set<String>)] = [
                ("bridge", ["phone-body", "phone-fix"]), ("viewer", ["phone-body", "phone-fix"]), ("device", ["phone-fix"]),
                ("sensors", []), ("compass", []),
            ]
            for (user, reads) in expected {
                let got = try await Self.retained(by: user, of: ["sensor-logger", "owntracks/#"], on: broker, marker: sensors)
                #expect(got == reads, "\(user) reads \(got.sorted()) of what phones send the bridge, not \(reads.sorted())")
            }
            try await device.publish(BusMessage(topic: "sensor-logger", payload: Data(), qos: .atLeastOnce, retain: true))
            try await device.publish(BusMessage(topic: "owntracks/alice/phone", payload: Data(), qos: .atLeastOnce, retain: true))
            try await device.flush()

            // The compose health checks read $SYS with the viewer's credentials.
            let viewer = try await broker.client("viewer")
            let version = try await viewer.subscribe(to: "$SYS/broker/version")
            let got = await version.next(timeout: .seconds(10))
            #expect(got?.text.contains("mosquitto") == true, "viewer cannot read $SYS/broker/version")
            for client in [sensors, device, viewer] { await client.disconnect() }
        }
    }

    /// The payloads of the retained messages on `filters` that `user` receives. Each filter is subscribed on its
    /// own (a subscription the ACL refuses outright is simply nothing read); then a marker `marker` publishes on a
    /// topic every user reads arrives after every retained message the broker would send.
    static func retained(by user: String, of filters: [String], on broker: SecureBroker, marker: MosquittoBus) async throws -> Set<String> {
        let client = try await broker.client(user)
        var subscriptions: [BusSubscription] = []
        for filter in filters {
            if let subscription = try? await client.subscribe(to: TopicFilter(filter)) { subscriptions.append(subscription) }
        }
        let end = try await client.subscribe(to: TopicFilter("stepcompass/acl-\(user)/steps"))
        try await marker.publish(BusMessage(topic: "stepcompass/acl-\(user)/steps", text: "end", qos: .atLeastOnce))
        #expect(await end.next(timeout: .seconds(10))?.text == "end", "\(user) did not get the marker")
        var payloads = Set<String>()
        for subscription in subscriptions {
            while subscription.bufferedCount > 0 {
                for message in await subscription.nextBatch() { payloads.insert(message.text) }
            }
        }
        await client.disconnect()
        return payloads
    }

    @Test("anonymous clients and wrong passwords are refused on both listeners")
    func refusals() async throws {
        try await SecureBroker.with { broker in
            for (user, password) in [(nil, nil), ("sensors", "wrong")] as [(String?, String?)] {
                let who = user == nil ? "an anonymous client" : "a wrong password"
                let error = await #expect(throws: BusError.self, "\(who) was accepted over MQTT") {
                    let client = try await broker.client(user, password: password, timeout: .seconds(2))
                    await client.disconnect()
                }
                #expect(error?.message.contains("refused the connection") == true, "\(who) over MQTT: \(String(describing: error))")
                do {
                    let client = try WebSocketMQTTPublisher(
                        port: broker.webSocketPort, clientID: "acl-refused", username: user.map { _ in "device" }, password: password)
                    client.disconnect()
                    Issue.record("\(who) was accepted over WebSockets")
                } catch let failure as WebSocketMQTTPublisher.Failure {
                    #expect(failure.refusal != nil, "\(who) over WebSockets: \(failure)")
                }
            }
        }
    }
}
