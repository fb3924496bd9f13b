import BridgeService
import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import ServiceRuntime
import Testing

/// The bridge over the in-memory bus, with real HTTP requests to its push endpoint.
@Suite("Phone bridge: Sensor Logger HTTP push, OwnTracks, tokens")
struct BridgeServiceTests {
    let broker = InMemoryBroker()

    private func probe(_ filter: String = "stepcompass/#") async throws -> BusSubscription {
        let bus = InMemoryBus(broker: broker, clientID: "probe-\(UUID().uuidString)", cleanStart: true)
        bus.connect()
        return try await bus.subscribe(to: TopicFilter(filter))
    }

    private func bridgeBus() -> InMemoryBus {
        InMemoryBus(broker: broker, clientID: "stepcompass-bridge")
    }

    @Test("an Android push becomes imu, location, pedometer steps and permissions, in time order")
    func androidPush() async throws {
        let feed = try await probe()
        try await BridgeHarness.with(bus: bridgeBus()) { bridge async throws in
            let answer = try await bridge.push(SensorLoggerBodies.android(), query: "device=pixel")
            #expect(answer.status == 200)
            #expect(answer.text.contains(#""device":"pixel""#))
            let messages = await collectJSON(feed) { found in found.filter { $0.topic.hasSuffix("/imu") }.count >= 20 }
            let imu = messages.filter { $0.topic == "stepcompass/pixel/imu" }
            #expect(imu.count == 20)
            let first = try #require(imu.first?.json)
            #expect(first["accel"] as? [Double] == [0.05, -0.02, 9.9])
            #expect(first["mag"] as? [Double] == [12.5, -3.25, -41.0])
            #expect(first["gyro"] as? [Double] == [0.01, -0.02, 0.003])
            #expect(first["timestamp"] as? String == "2026-11-22T10:00:00.000Z")
            let stamps = imu.compactMap { $0.json["timestamp"] as? String }
            #expect(stamps == stamps.sorted())
            let location = try #require(messages.first { $0.topic == "stepcompass/pixel/location" }?.json)
            #expect(location["latitude"] as? Double == 48.1374)
            #expect(location["course"] as? Double == 92.5)
            #expect(location["speed"] as? Double == 1.4)
            let steps = try #require(messages.first { $0.topic == "stepcompass/pixel/steps" }?.json)
            #expect(steps["steps"] as? Int == 12)
            #expect(steps["source"] as? String == "pedometer")
            let permissions = try #require(broker.retainedMessage(on: "stepcompass/pixel/permissions"))
            #expect(permissions.text.contains(#""location":"authorized""#))
            #expect(permissions.text.contains(#""motion":"authorized""#))
        }
    }

    @Test("an iPhone's negated acceleration and gravity are turned into the contract's frame")
    func iOSPush() async throws {
        let feed = try await probe("stepcompass/+/imu")
        try await BridgeHarness.with(bus: bridgeBus()) { bridge async throws in
            let answer = try await bridge.push(SensorLoggerBodies.iOS())
            #expect(answer.status == 200)
            let imu = await collectJSON(feed) { $0.count >= 5 }
            let first = try #require(imu.first)
            // The body's deviceId, made a valid and stable device id.
            #expect(first.topic == "stepcompass/F00D-CAFE/imu")
            let accel = try #require(first.json["accel"] as? [Double])
            #expect(abs(accel[0] - 0.05) < 1e-9)
            #expect(abs(accel[1] + 0.02) < 1e-9)
            #expect(abs(accel[2] - 9.90665) < 1e-9)
        }
    }

    @Test("an iPhone that sends no platform evidence is read right when the URL says platform=ios")
    func declaredPlatform() async throws {
        let feed = try await probe("stepcompass/+/imu")
        var samples: [String] = []
        for index in 0..<Int64(10) {
            samples.append(SensorLoggerBodies.sample("magnetometer", index * 10, SensorLoggerBodies.xyz(12.5, -3.25, -41.0)))
            samples.append(SensorLoggerBodies.sample("accelerometer", index * 10, SensorLoggerBodies.xyz(0, 0, -0.1)))
            samples.append(SensorLoggerBodies.sample("gravity", index * 10, SensorLoggerBodies.xyz(0, 0, -9.80665)))
        }
        let body = SensorLoggerBodies.body(samples)
        try await BridgeHarness.with(bus: bridgeBus()) { bridge async throws in
            #expect(try await bridge.push(body, query: "device=iphone&platform=ios").status == 200)
            #expect(try await bridge.push(body, query: "device=other&platform=windows").status == 400)
            let imu = await collectJSON(feed) { $0.count >= 5 }
            let accel = try #require(imu.first?.json["accel"] as? [Double])
            #expect(abs(accel[2] - 9.90665) < 1e-9)
        }
    }

    @Test("location permission: notDetermined until the first fix, then authorized, and never taken back")
    func permissionsUpgrade() async throws {
        let feed = try await probe("stepcompass/+/permissions")
        var noFix: [String] = []
        for index in 0..<Int64(5) {
            noFix.append(SensorLoggerBodies.sample("magnetometer", index * 10, SensorLoggerBodies.xyz(12.5, -3.25, -41.0)))
            noFix.append(SensorLoggerBodies.sample("totalacceleration", index * 10, SensorLoggerBodies.xyz(0, 0, 9.8)))
        }
        let withoutFix = SensorLoggerBodies.body(noFix)
        try await BridgeHarness.with(bus: bridgeBus()) { bridge async throws in
            #expect(try await bridge.push(withoutFix, query: "device=upgrade").status == 200)
            let first = await collectJSON(feed) { !$0.isEmpty }
            #expect(first.first?.json["location"] as? String == "notDetermined")
            #expect(try await bridge.push(SensorLoggerBodies.android(start: 100), query: "device=upgrade").status == 200)
            let second = await collectJSON(feed) { !$0.isEmpty }
            #expect(second.first?.json["location"] as? String == "authorized")
            #expect(try await bridge.push(withoutFix, query: "device=upgrade").status == 200)
            #expect(broker.retainedMessage(on: "stepcompass/upgrade/permissions")?.text.contains(#""location":"authorized""#) == true)
        }
    }

    @Test("batches that arrive out of order are published in time order")
    func outOfOrder() async throws {
        let feed = try await probe("stepcompass/+/imu")
        try await BridgeHarness.with(bus: bridgeBus(), configuration: BridgeConfiguration(httpPort: 0, reorderDelay: 0.5)) { bridge async throws in
            #expect(try await bridge.push(SensorLoggerBodies.android(messageId: 2, start: 200), query: "device=late").status == 200)
            #expect(try await bridge.push(SensorLoggerBodies.android(messageId: 1, start: 0), query: "device=late").status == 200)
            let imu = await collectJSON(feed) { $0.count >= 40 }
            #expect(imu.count == 40)
            let stamps = imu.compactMap { $0.json["timestamp"] as? String }
            #expect(stamps == stamps.sorted())
            #expect(stamps.first == "2026-11-22T10:00:00.000Z")
        }
    }

    @Test(
        "a bad body gets 400 with a one-line reason and a report on the error topic",
        arguments: [
            ("not json", "JSON"),
            (#"{"payload": 3}"#, "payload"),
            (#"{"messageId": 1, "payload": [{"name": "accelerometer", "time": 1, "values": {"y": 1, "z": 2}}]}"#, "x"),
        ])
    func badBody(body: String, mentions: String) async throws {
        let errors = try await probe("stepcompass/errors/bridge")
        try await BridgeHarness.with(bus: bridgeBus()) { bridge async throws in
            let answer = try await bridge.push(body, query: "device=phone")
            #expect(answer.status == 400)
            #expect(answer.text.split(separator: "\n").count == 1)
            #expect(answer.text.contains(mentions))
            let report = try #require(await collectJSON(errors) { !$0.isEmpty }.first?.json)
            #expect(report["error"] as? String == answer.text.trimmingCharacters(in: .newlines))
            // The bridge goes on: a good body after a bad one is taken.
            #expect(try await bridge.push(SensorLoggerBodies.android(), query: "device=phone").status == 200)
        }
    }

    @Test("an invalid device parameter is refused")
    func invalidDevice() async throws {
        try await BridgeHarness.with(bus: bridgeBus()) { bridge async throws in
            let answer = try await bridge.push(SensorLoggerBodies.android(), query: "device=markers")
            #expect(answer.status == 400)
            #expect(answer.text.contains("not a valid device id"))
        }
    }

    @Test("with a token, only a request that carries it (basic, bearer or query) or the device's own is taken")
    func tokens() async throws {
        let configuration = BridgeConfiguration(
            httpHost: "127.0.0.1", httpPort: 0, token: "s3cret", deviceTokens: ["kim": "kims-token"], reorderDelay: 0.05)
        try await BridgeHarness.with(bus: bridgeBus(), configuration: configuration) { bridge async throws in
            let body = SensorLoggerBodies.android()
            #expect(try await bridge.push(body, query: "device=pixel").status == 401)
            #expect(try await bridge.push(body, query: "device=pixel&token=wrong").status == 401)
            #expect(try await bridge.push(body, query: "device=pixel&token=s3cret").status == 200)
            #expect(try await bridge.push(body, query: "device=pixel", headers: [("authorization", "Bearer s3cret")]).status == 200)
            let basic = Data("pixel:s3cret".utf8).base64EncodedString()
            #expect(try await bridge.push(body, query: "device=pixel", headers: [("authorization", "Basic \(basic)")]).status == 200)
            #expect(try await bridge.push(body, query: "device=kim&token=kims-token").status == 200)
            #expect(try await bridge.push(body, query: "device=pixel&token=kims-token").status == 401)
        }
    }

    /// A web page the user visits can post a no-cors request or a form to 127.0.0.1:8090: its browser marks it.
    @Test("a push a browser sent for a web page (Origin, Sec-Fetch-Site) gets 403 and publishes nothing; an app's push 200")
    func webPagesRefused() async throws {
        let feed = try await probe("stepcompass/+/steps")
        try await BridgeHarness.with(bus: bridgeBus()) { bridge async throws in
            let body = SensorLoggerBodies.android()
            let fromPage = try await bridge.push(body, query: "device=page", headers: [("Origin", "https://evil.test")])
            #expect(fromPage.status == 403)
            #expect(fromPage.text.contains("not from web pages"))
            #expect(try await bridge.push(body, query: "device=page", headers: [("Sec-Fetch-Site", "cross-site")]).status == 403)
            #expect(try await bridge.push(body, query: "device=page", headers: [("Sec-Fetch-Site", "same-origin")]).status == 403)
            // A navigation the user typed (Sec-Fetch-Site: none) and an app (no such headers) are not pages.
            #expect(try await bridge.push(body, query: "device=typed", headers: [("Sec-Fetch-Site", "none")]).status == 200)
            #expect(try await bridge.push(body, query: "device=app").status == 200)
            // The page's pushes, had they been taken, would have published their pedometer count first.
            let messages = await collectJSON(feed, timeout: .seconds(10)) { found in found.count >= 2 }
            #expect(messages.map(\.topic) == ["stepcompass/typed/steps", "stepcompass/app/steps"])
        }
    }

    @Test("without a token the push endpoint may not listen beyond loopback")
    func openEndpointRefused() {
        #expect(throws: BridgeError.self) {
            do { try BridgeConfiguration(httpHost: "0.0.0.0").validate() } catch { throw error }
        }
        #expect(BridgeConfiguration(token: "t").effectiveHTTPHost == "0.0.0.0")
        #expect(BridgeConfiguration().effectiveHTTPHost == "127.0.0.1")
    }

    @Test("OwnTracks locations become the location of USER-DEVICE; other message types are ignored; bad ones reported")
    func ownTracks() async throws {
        let feed = try await probe()
        let phone = InMemoryBus(broker: broker, clientID: "owntracks-app", cleanStart: true)
        phone.connect()
        try await BridgeHarness.with(bus: bridgeBus()) { _ async throws in
            try await phone.publish(BusMessage(topic: "owntracks/alice/phone", text: #"{"_type":"transition","event":"enter"}"#, qos: .atLeastOnce))
            try await phone.publish(BusMessage(topic: "owntracks/alice/phone", text: "{oops", qos: .atLeastOnce))
            try await phone.publish(
                BusMessage(
                    topic: "owntracks/alice/phone",
                    text: #"{"_type":"location","lat":48.1374,"lon":11.5755,"alt":519,"acc":12,"vel":18,"cog":270,"tst":1795341600}"#,
                    qos: .atLeastOnce))
            let messages = await collectJSON(feed) { found in found.contains { $0.topic.hasSuffix("/location") } }
            let location = try #require(messages.first { $0.topic == "stepcompass/alice-phone/location" }?.json)
            #expect(location["latitude"] as? Double == 48.1374)
            #expect(location["horizontalAccuracy"] as? Double == 12)
            #expect(abs((location["speed"] as? Double ?? 0) - 5) < 1e-9)  // 18 km/h
            #expect(location["timestamp"] as? String == "2026-11-22T10:00:00.000Z")
            #expect(messages.contains { $0.topic == "stepcompass/errors/bridge" })
        }
    }
}
