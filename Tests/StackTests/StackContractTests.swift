import Bus
import BusTesting
import Foundation
import MosquittoBus
import StepCompassContract
import Testing

/// The running stack against its contract, end to end and without Docker: the compose broker's configuration
/// (``SecureBroker``: `secure.conf`, the ACL, the passwords and push token `compose/broker-entrypoint.sh` generates,
/// the WebSockets listener) on a private mosquitto, the eight services built from this tree connected as their own
/// users (``ContractStack``), the simulated walker at 4x speed, then everything a user or a phone would do:
/// - commands through the dashboard's HTTP API (a journal walk, a bearing lock, the north setting, a calibration, a
///   marker refresh, a position reset), each seen taking effect on the bus;
/// - nearest-marker requests through the dashboard, over MQTT 5 (response topic and correlation data) and MQTT 3.1.1
///   (`replyTo` and `correlationId` in the payload);
/// - phone input through the bridge: a Sensor Logger HTTP push with the generated token (and refused with a wrong
///   one), the same body over the broker's WebSockets listener as the `device` user, an OwnTracks location, and IMU
///   samples of a walking phone without a pedometer for the bridge's step detector;
/// - step-history requests to the activity service over MQTT 5 and 3.1.1;
/// - a walk of the journal, started and stopped through the dashboard, with photos every 20 m from the local photo
///   server served back by the dashboard; its walks, the walk and its GPX over MQTT 5, 3.1.1 and the dashboard;
/// - bad inputs as a device would send them: each dropped and reported, no service stopped.
///
/// Everything on `stepcompass/#` (and what phones publish outside it: `sensor-logger`, `owntracks/#`) is captured as
/// the `viewer` user and checked: every service says online, and offline after SIGTERM, and exits with status 0;
/// every topic the contract makes these services publish shows up (so the ACL lets it through); error reports stay
/// few (a report that triggers another report would loop); and every captured payload but the bad inputs validates
/// against `Docs/asyncapi.yaml` (`scripts/check-asyncapi.py`, the one validator, in Python for jsonschema).
@Suite(
    "Stack contract", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests),
    .enabled("needs a Python with PyYAML and jsonschema (scripts/check-asyncapi-all.sh makes .build/venv-asyncapi)") {
        await AsyncAPIValidator.shouldRun()
    })
struct StackContractTests {
    /// The bad inputs sent on purpose: left out of the validation against the document.
    static let badTopics: Set<String> = [
        "stepcompass/walker-9/steps", "stepcompass/bad.id/imu", "stepcompass/walker-9/location", "owntracks/bob/phone",
        "stepcompass/walker-9/cmd/walk",
    ]

    /// Every topic these services must publish in the run (under `stepcompass/`; `{d}` is the walker's device id).
    static let requiredTopics = [
        "{d}/steps", "{d}/imu", "{d}/location", "{d}/permissions", "{d}/simulation/truth", "{d}/heading", "{d}/calibration",
        "{d}/bearing-lock", "{d}/position", "{d}/nearby", "markers/status", "markers/collection", "replies/contract-check",
        "replies/contract-311", "errors/compass", "errors/markers", "errors/position", "errors/dashboard", "services/dashboard/status",
        "services/sensors/status", "services/compass/status", "services/position/status", "services/markers/status",
        "services/bridge/status", "errors/bridge", "{d}/activity", "services/activity/status", "errors/activity", "replies/contract-history",
        "{d}/journal", "{d}/journal/photo", "services/journal/status", "errors/journal", "replies/contract-walks", "contract-phone/imu",
        "contract-phone/location", "contract-phone/steps", "contract-phone/permissions", "contract-ws/imu", "contract-ws/steps",
        "alice-phone/location", "alice-phone/permissions", "contract-walker/steps",
    ]

    @Test("the stack on the compose broker: commands, requests, phones, a journal walk and bad inputs, every payload as Docs/asyncapi.yaml says")
    func contract() async throws {
        let python = try #require(await AsyncAPIValidator.python.value, "\(AsyncAPIValidator.missing)")
        try await SecureBroker.with { broker in
            let stack = try ContractStack()
            defer { stack.remove() }
            let viewer = try await broker.client("viewer")
            let everything = try await viewer.subscribe(
                to: ["stepcompass/#", "sensor-logger", "owntracks/#"].map { SubscriptionRequest(try TopicFilter($0), qos: .atLeastOnce) })
            let run = ContractRun(
                broker: broker, stack: stack, capture: MessageCapture(everything),
                dashboard: try await broker.client("dashboard"), dashboard311: try await broker.client("dashboard", protocolVersion: .v311),
                device311: try await broker.client("device", protocolVersion: .v311))
            try await stack.start(on: broker)
            try await run.expectOnline()
            try await run.commands()
            try await run.nearestMarkers()
            try await run.stepHistory()
            try await run.phones()
            try await run.badInputs()
            try await run.journal()
            try await run.resetPosition()
            try await run.stop()
            for client in [viewer, run.dashboard, run.dashboard311, run.device311] { await client.disconnect() }
            try await run.checkCapture(python: python)
        }
    }
}

/// One run of the contract check: the stack, the capture, and the test's own clients (the dashboard's user over MQTT 5
/// and 3.1.1, a phone as the `device` user over MQTT 3.1.1, as `mosquitto_pub` and phone apps connect).
final class ContractRun {
    let broker: SecureBroker
    let stack: ContractStack
    let capture: MessageCapture
    let dashboard: MosquittoBus
    let dashboard311: MosquittoBus
    let device311: MosquittoBus

    init(
        broker: SecureBroker, stack: ContractStack, capture: MessageCapture, dashboard: MosquittoBus, dashboard311: MosquittoBus,
        device311: MosquittoBus
    ) {
        self.broker = broker
        self.stack = stack
        self.capture = capture
        self.dashboard = dashboard
        self.dashboard311 = dashboard311
        self.device311 = device311
    }

    static let replies311 = "stepcompass/replies/contract-311"
    /// When the marker service last loaded its markers (its status's `updatedAt`).
    var markersUpdated = ""

    func expectOnline() async throws {
        for service in ContractStack.services {
            let online = await capture.first(on: "stepcompass/services/\(service)/status") {
                $0["state"] as? String == "online" && $0["service"] as? String == service
            }
            #expect(online != nil, "\(service) did not say online within 60 s: \(stack.logTail(service))")
        }
        let markers = await capture.first(on: "stepcompass/markers/status") { $0["state"] as? String == "ready" }
        markersUpdated = try #require(markers?["updatedAt"] as? String, "the marker service did not load its markers: \(stack.logTail("markers"))")
    }

    /// A command through the dashboard's HTTP API, which publishes it as the `dashboard` user: 202.
    func command(_ path: String, _ json: String) async throws {
        let reply = try await stack.dashboard(post: path, json: json)
        #expect(reply.status == 202, "POST \(path) \(json) answered \(reply.status): \(reply.text)")
    }

    /// Publishes at QoS 1 and waits for the broker's acknowledgement (as `mosquitto_pub -q 1` returns).
    func publish(_ client: MosquittoBus, _ topic: String, _ text: String) async throws {
        try await client.publish(BusMessage(topic: topic, text: text, qos: .atLeastOnce))
        try await client.flush()
    }

    /// The first MQTT 3.1.1 reply on `stepcompass/replies/contract-311` that echoes the `correlationId` `id` exactly.
    func reply311(_ id: CorrelationID) async -> [String: Any]? {
        struct Echo: Decodable {
            let correlationId: CorrelationID?
        }
        let reply = await capture.first { message in
            message.topic == Self.replies311 && (try? JSONDecoder().decode(Echo.self, from: message.payload))?.correlationId == id
        }
        return reply.flatMap(MessageCapture.json)
    }

    func commands() async throws {
        let issued = await capture.drain()
        try await command("/api/devices/walker-1/walk", #"{"action": "start", "name": "contract check"}"#)
        try await command("/api/devices/walker-1/bearing-lock", #"{"action": "lock", "bearing": 45, "threshold": 10}"#)
        try await command("/api/devices/walker-1/settings", #"{"north": "magnetic"}"#)
        try await command("/api/devices/walker-1/calibrate", #"{"action": "start"}"#)
        try await command("/api/markers/refresh", "{}")
        let walking = await capture.first(on: "stepcompass/walker-1/journal", from: issued) {
            ($0["walk"] as? [String: Any])?["name"] as? String == "contract check"
        }
        #expect(walking != nil, "the journal did not start the walk 'contract check': \(stack.logTail("journal"))")
        let locked = await capture.first(on: "stepcompass/walker-1/bearing-lock", from: issued) {
            $0["locked"] as? Bool == true && $0["bearing"] as? Double == 45 && $0["threshold"] as? Double == 10
        }
        #expect(locked != nil, "the compass did not lock the bearing at 45° ± 10°")
        // Magnetic although the location is known (a true heading is there): the setting, not the lack of a location.
        let magnetic = await capture.first(on: "stepcompass/walker-1/heading", from: issued) {
            $0["north"] as? String == "magnetic" && $0["trueHeading"] is Double
        }
        #expect(magnetic != nil, "no heading referred to magnetic north after the setting")
        let calibrating = await capture.first(on: "stepcompass/walker-1/calibration", from: issued) { $0["state"] as? String == "calibrating" }
        #expect(calibrating != nil, "the compass did not start calibrating")
        let refreshed = await capture.first(on: "stepcompass/markers/status", from: issued) {
            $0["state"] as? String == "ready" && ($0["updatedAt"] as? String ?? "") > self.markersUpdated
        }
        #expect(refreshed != nil, "the marker service did not load its markers again after the refresh")

        let changed = await capture.drain()
        try await command("/api/devices/walker-1/settings", #"{"north": "true"}"#)
        try await command("/api/devices/walker-1/bearing-lock", #"{"action": "unlock"}"#)
        let trueNorth = await capture.first(on: "stepcompass/walker-1/heading", from: changed) { $0["north"] as? String == "true" }
        #expect(trueNorth != nil, "no heading referred to true north after the setting")
        let unlocked = await capture.first(on: "stepcompass/walker-1/bearing-lock", from: changed) { $0["locked"] as? Bool == false }
        #expect(unlocked != nil, "the compass did not unlock the bearing")

        // The dashboard's view of the walker: a heading and a position (waiting for both, a minute at most).
        var state = ""
        var looks = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while !(state.contains(#""headingText":"Heading: "#) && state.contains(#""positionText":"Position: ("#)),
            ContinuousClock.now < deadline || looks < 100
        {
            if looks > 0 { try await Task.sleep(for: .milliseconds(200)) }
            looks += 1
            state = try await stack.dashboard(get: "/api/state").text
        }
        #expect(
            state.contains(#""headingText":"Heading: "#) && state.contains(#""positionText":"Position: ("#),
            "the dashboard's state lacks a heading or position: \(state.prefix(400))")
    }

    func nearestMarkers() async throws {
        let viaDashboard = try await stack.dashboard(get: "/api/markers/muc-001/nearest?count=3")
        #expect(
            viaDashboard.status == 200 && viaDashboard.text.contains(#""distanceText""#),
            "the dashboard's nearest-markers request through the ACL'd broker failed: \(viaDashboard.status) \(viaDashboard.text.prefix(300))")

        // MQTT 5: the response topic and correlation data as properties (what mosquitto_rr sends).
        let reply = try await dashboard.request(
            BusMessage(topic: "stepcompass/markers/nearest", text: #"{"latitude": 48.15, "longitude": 11.59, "count": 3}"#, qos: .atLeastOnce),
            replyTopic: "stepcompass/replies/contract-check", timeout: .seconds(60))
        #expect(reply.properties.correlationData != nil, "the MQTT 5 reply does not echo the correlation data")
        let nearest = try? JSONDecoder().decode(NearestReply.self, from: reply.payload)
        #expect(nearest?.nearest?.count == 3, "no three nearest markers over MQTT 5: \(reply.text.prefix(300))")

        // MQTT 3.1.1: replyTo and correlationId in the payload.
        try await publish(
            dashboard311, "stepcompass/markers/nearest",
            #"{"latitude": 48.15, "longitude": 11.59, "count": 2, "replyTo": "\#(Self.replies311)", "correlationId": "c-1"}"#)
        try await publish(
            dashboard311, "stepcompass/markers/nearest", #"{"id": "no-such-marker", "replyTo": "\#(Self.replies311)", "correlationId": 2}"#)
        let two = await reply311(.string("c-1"))
        #expect((two?["nearest"] as? [Any])?.count == 2, "no two nearest markers over MQTT 3.1.1: \(String(describing: two))")
        let unknown = await reply311(.integer(2))
        #expect((unknown?["error"] as? [String: Any])?["code"] is String, "no error reply for an unknown marker: \(String(describing: unknown))")
    }

    func stepHistory() async throws {
        // The walker's steps so far, per minute, in the hour either side of its activity's timestamp (the walker's
        // simulated clock, not now).
        // Once it has counted some: its first activity message (at start-up, stamped with the service's clock) has none.
        let activity = await capture.first(on: "stepcompass/walker-1/activity") { $0["timestamp"] is String && ($0["today"] as? Int ?? 0) > 0 }
        let timestamp = try #require(activity?["timestamp"] as? String, "no stepcompass/walker-1/activity with steps and a timestamp")
        let time = try #require(Timestamp.parse(timestamp), "the activity's timestamp '\(timestamp)' is not ISO 8601")
        let format = ISO8601DateFormatter()
        let from = format.string(from: time.addingTimeInterval(-3600))
        let to = format.string(from: time.addingTimeInterval(3600))
        let reply = try await dashboard.request(
            BusMessage(
                topic: "stepcompass/activity/history", text: #"{"device": "walker-1", "from": "\#(from)", "to": "\#(to)", "granularity": "minute"}"#,
                qos: .atLeastOnce),
            replyTopic: "stepcompass/replies/contract-history", timeout: .seconds(60))
        let history = try? JSONDecoder().decode(HistoryReply.self, from: reply.payload)
        #expect(
            reply.properties.correlationData != nil && history?.buckets?.contains { $0.steps > 0 } == true,
            "no MQTT 5 step-history reply with steps for walker-1: \(reply.text.prefix(300))")

        try await publish(
            dashboard311, "stepcompass/activity/history",
            #"{"device": "walker-1", "from": "\#(from)", "to": "\#(to)", "granularity": "hour", "replyTo": "\#(Self.replies311)", "correlationId": "h-1"}"#
        )
        try await publish(
            dashboard311, "stepcompass/activity/history",
            #"{"device": "walker-1", "from": "\#(to)", "to": "\#(from)", "granularity": "day", "replyTo": "\#(Self.replies311)", "correlationId": 3}"#
        )
        let hourly = await reply311(.string("h-1"))
        let hours = (hourly?["buckets"] as? [[String: Any]] ?? []).compactMap { $0["steps"] as? Int }
        #expect(hours.contains { $0 > 0 }, "no MQTT 3.1.1 step-history reply with steps: \(String(describing: hourly))")
        let reversed = await reply311(.integer(3))
        #expect((reversed?["error"] as? [String: Any])?["code"] is String, "no error reply for a reversed period: \(String(describing: reversed))")
    }

    func phones() async throws {
        // A Sensor Logger HTTP push with the token as Sensor Logger sends it (?token=), then with a wrong one.
        let body = Data(SensorLoggerBodies.android(device: "3f2a4b1c-9d8e").utf8)
        let pushed = try await stack.bridge(post: "/sensor-logger?device=contract-phone&token=\(broker.bridgeToken)", body: body)
        #expect(
            pushed.status == 200 && pushed.json?["status"] as? String == "ok" && pushed.json?["device"] as? String == "contract-phone",
            "the bridge's Sensor Logger HTTP push answered \(pushed.status): \(pushed.text)")
        let refused = try await stack.bridge(post: "/sensor-logger?device=contract-phone&token=wrong", body: body)
        #expect(refused.status == 401, "the bridge accepted a push with a wrong token (HTTP \(refused.status))")

        // Sensor Logger's MQTT push: the same body over the broker's WebSockets listener, as the device user.
        do {
            let phone = try WebSocketMQTTPublisher(
                port: broker.webSocketPort, clientID: "contract-ws-phone", username: "device", password: broker.password("device"))
            try phone.publishAcknowledged(topic: "sensor-logger", payload: Array(SensorLoggerBodies.android(device: "contract-ws").utf8))
            phone.disconnect()
        } catch {
            Issue.record("the device user could not publish a Sensor Logger body over WebSockets: \(error)")
        }
        // OwnTracks: owntracks/alice/phone becomes the device alice-phone.
        try await publish(
            device311, "owntracks/alice/phone",
            #"{"_type": "location", "lat": 48.1374, "lon": 11.5755, "alt": 519, "acc": 12, "vel": 5, "cog": 90, "tst": 1795341600, "tid": "ph"}"#)
        // A phone that publishes IMU samples but no pedometer count (QoS 0, as `mosquitto_pub -l`): the bridge's
        // detector counts its steps.
        for line in PhoneSamples.walkingIMULines() {
            try await device311.publish(BusMessage(topic: "stepcompass/contract-walker/imu", text: line, qos: .atMostOnce))
        }
        try await device311.flush()

        // The bridge's steps say where they come from: the phone's pedometer, or its detector (with a distance).
        let pedometer = await capture.first(on: "stepcompass/contract-phone/steps") {
            $0["steps"] as? Int == 12 && $0["source"] as? String == "pedometer"
        }
        #expect(
            pedometer != nil,
            "the pushed pedometer count did not arrive as steps with source pedometer: \(capture.messages(on: "stepcompass/contract-phone/steps").prefix(2).map(\.text))"
        )
        // The detector's steps (stepcompass/contract-walker/steps) are checked in the whole capture (`checkCapture`),
        // and every topic of the bridge with the rest of `requiredTopics` before the services stop (`stop`).
    }

    func badInputs() async throws {
        // Bad inputs, on purpose: each must be dropped and reported, never stop a service.
        try await publish(device311, "stepcompass/walker-9/steps", #"{"steps": "many"}"#)
        try await publish(device311, "stepcompass/bad.id/imu", #"{"accel": [0, 0, 9.8], "mag": [0, 20, -40]}"#)
        try await publish(device311, "stepcompass/walker-9/location", "not json")
        try await publish(device311, "owntracks/bob/phone", #"{"_type": "location", "lat": 48.1}"#)
        try await publish(dashboard311, "stepcompass/walker-9/cmd/walk", #"{"action": "pause"}"#)
        let badPush = try await stack.bridge(
            post: "/sensor-logger?device=contract-phone&token=\(broker.bridgeToken)", body: Data(#"{"payload": "none"}"#.utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(badPush.status == 400, "the bridge did not refuse a bad push body with 400: \(badPush.status) \(badPush.text)")
        for topic in StackContractTests.badTopics.sorted() + ["POST /sensor-logger?device=contract-phone"] {
            let report = await capture.first { $0.topic.hasPrefix("stepcompass/errors/") && MessageCapture.json($0)?["topic"] as? String == topic }
            #expect(report != nil, "nobody reported the bad input on \(topic)")
        }
        for service in ContractStack.services {
            #expect(stack.processes[service]?.isRunning == true, "\(service) stopped after the bad inputs: \(stack.logTail(service))")
        }
    }

    func journal() async throws {
        // The walk (started with the commands) reaches photo points with photos from the local photo server; each
        // image is in the journal's cache, and the dashboard serves it.
        let found = await capture.first(on: "stepcompass/walker-1/journal/photo") { $0["status"] as? String == "found" }
        #expect(found != nil, "the journal published no photo point with a photo for walker-1: \(stack.logTail("journal"))")
        let imageURL = (found?["photo"] as? [String: Any])?["imageUrl"] as? String ?? ""
        #expect(imageURL.hasPrefix("/journal/photos/"), "the photo's image is not under /journal/photos/: \(imageURL)")
        let image = String(imageURL.dropFirst("/journal/photos/".count))
        if !image.isEmpty {
            let cached = try? Data(contentsOf: stack.journalPhotos.appendingPathComponent(image))
            #expect(cached?.isEmpty == false, "the photo's image '\(imageURL)' is not in the journal's cache")
            let served = try await stack.dashboard(get: imageURL)
            #expect(served.status == 200 && served.body == cached, "the dashboard did not serve the journal's \(imageURL) (HTTP \(served.status))")
        }

        // Its walks, the walk and its GPX over MQTT 5 and 3.1.1, and through the dashboard.
        let walks = try await dashboard.request(
            BusMessage(topic: "stepcompass/journal/walks", text: #"{"device": "walker-1"}"#, qos: .atLeastOnce),
            replyTopic: "stepcompass/replies/contract-walks", timeout: .seconds(60))
        let walkID = try #require(
            (try? JSONDecoder().decode(WalksReply.self, from: walks.payload))?.walks?.first { $0.name == "contract check" }?.id,
            "no list of walks with the walk 'contract check' over MQTT 5: \(walks.text.prefix(300))")
        let walk = try await dashboard.request(
            BusMessage(topic: "stepcompass/journal/walks", text: #"{"device": "walker-1", "walk": "\#(walkID)"}"#, qos: .atLeastOnce),
            replyTopic: "stepcompass/replies/contract-walks", timeout: .seconds(60))
        let detail = try? JSONDecoder().decode(WalksReply.self, from: walk.payload)
        #expect(
            detail?.route?.isEmpty == false && detail?.points?.isEmpty == false,
            "no walk with a route and photo points over MQTT 5: \(walk.text.prefix(300))")
        try await publish(
            dashboard311, "stepcompass/journal/walks",
            #"{"device": "walker-1", "walk": "\#(walkID)", "format": "gpx", "replyTo": "\#(Self.replies311)", "correlationId": "w-1"}"#)
        try await publish(
            dashboard311, "stepcompass/journal/walks",
            #"{"device": "walker-1", "walk": "no-such-walk", "replyTo": "\#(Self.replies311)", "correlationId": 4}"#)
        let gpx = try await stack.dashboard(get: "/api/devices/walker-1/walks/\(walkID).gpx")
        #expect(
            gpx.status == 200 && gpx.text.hasPrefix("<?xml ") && gpx.text.contains("<gpx ") && gpx.text.contains("<trkpt "),
            "the dashboard's GET /api/devices/walker-1/walks/\(walkID).gpx is not a GPX track: \(gpx.text.prefix(200))")
        let gpx311 = await reply311(.string("w-1"))
        #expect((gpx311?["gpx"] as? String)?.hasPrefix("<?xml ") == true, "no GPX reply for the MQTT 3.1.1 request (replyTo, correlationId w-1)")
        let unknown = await reply311(.integer(4))
        #expect((unknown?["error"] as? [String: Any])?["code"] is String, "no error reply for an unknown walk: \(String(describing: unknown))")

        let stopping = await capture.drain()
        try await command("/api/devices/walker-1/walk", #"{"action": "stop"}"#)
        let stopped = await capture.first(on: "stepcompass/walker-1/journal", from: stopping) { $0["walk"] is NSNull }
        #expect(stopped != nil, "after cmd/walk stop the journal still shows a walk")
    }

    /// A position reset through the dashboard, once the walk is over: the position service stamps the reset with its
    /// own clock (now) while the simulated walker's fixes carry its simulated clock (2026-11-22), so during a walk the
    /// journal would take every later fix as out of order and the walk would reach no more photo points.
    func resetPosition() async throws {
        let reset = await capture.drain()
        try await command("/api/devices/walker-1/reset-position", "{}")
        let origin = await capture.first(on: "stepcompass/walker-1/position", from: reset) {
            $0["x"] as? Double == 0 && $0["y"] as? Double == 0 && $0["steps"] as? Int == 0
        }
        #expect(origin != nil, "the position service did not reset walker-1's position")
    }

    /// SIGTERM: every service exits with status 0 and leaves an offline status. Once every offline status is in, the
    /// capture holds everything the services published (each published its status last, after the rest).
    func stop() async throws {
        // Every topic the run must have seen, before the services go: none is left to chance.
        for topic in StackContractTests.requiredTopics {
            let name = "stepcompass/" + topic.replacingOccurrences(of: "{d}", with: "walker-1")
            #expect(await capture.first { $0.topic == name } != nil, "nothing was published on \(name)")
        }
        let stopping = await capture.drain()
        for service in ContractStack.services { stack.processes[service]?.signal(SIGTERM) }
        stack.photoServer?.signal(SIGTERM)
        for service in ContractStack.services {
            let status = await stack.processes[service]?.waitForExit(timeout: .seconds(60))
            #expect(status == 0, "\(service) exited with status \(String(describing: status)) after SIGTERM: \(stack.logTail(service))")
        }
        _ = await stack.photoServer?.waitForExit(timeout: .seconds(60))
        for service in ContractStack.services {
            let offline = await capture.first(on: "stepcompass/services/\(service)/status", from: stopping) { $0["state"] as? String == "offline" }
            #expect(offline != nil, "\(service) did not leave an offline status")
        }
        // What a client connecting now reads: every service's retained status says offline.
        let late = try await broker.client("viewer")
        let statuses = try await late.subscribe(to: try TopicFilter("stepcompass/services/+/status"))
        var retained: [String: String] = [:]
        while retained.count < ContractStack.services.count, let message = await statuses.next(timeout: .seconds(60)) {
            retained[message.topic] = MessageCapture.json(message)?["state"] as? String
        }
        for service in ContractStack.services {
            let state = retained["stepcompass/services/\(service)/status"]
            #expect(state == "offline", "\(service)'s retained status is \(String(describing: state)), not offline")
        }
        await late.disconnect()
    }

    /// The whole capture: the topics, the phones' steps, the error reports, and every payload against the document.
    func checkCapture(python: String) async throws {
        await capture.drain()
        let messages = capture.messages
        let topics = Set(messages.map { $0.topic.replacing(#/^stepcompass/walker-[0-9]+//#, with: "stepcompass/{d}/") })
        // Every required topic was seen before the services stopped (`stop`). The bridge's detector: its steps for a
        // phone without a pedometer (`phones`) say so and carry a distance, to the last.
        let detected = capture.messages(on: "stepcompass/contract-walker/steps").last.flatMap(MessageCapture.json)
        #expect(
            detected?["source"] as? String == "detector" && detected?["distance"] is Double,
            "the bridge's last detector steps for a phone without a pedometer lack a distance: \(String(describing: detected))")

        // A bounded number of error reports: 6 bad inputs (the 5 published on `badTopics` and the bad HTTP push), each
        // reported by the services that read its topic.
        let reports = messages.filter { $0.topic.hasPrefix("stepcompass/errors/") }
        let byTopic = Dictionary(grouping: reports, by: \.topic).mapValues(\.count).sorted { $0.key < $1.key }
        #expect(reports.count <= 24, "\(reports.count) error reports for 6 bad inputs (a report that triggers reports loops): \(byTopic)")

        // Every payload against the AsyncAPI document, except the bad inputs sent on purpose.
        let broken = messages.filter { $0.text.contains("\n") }.map(\.topic)
        #expect(broken.isEmpty, "payloads with a line break cannot be written as mosquitto_sub -v lines: \(Set(broken))")
        let file = stack.folder.appendingPathComponent("valid-capture.txt")
        try capture.mosquittoSubText(excluding: StackContractTests.badTopics).write(to: file, atomically: true, encoding: .utf8)
        let (status, output) = try await AsyncAPIValidator.validate(mosquittoSubCapture: file, python: python)
        if status != 0 {
            // Each problem once, with how often it came, the most frequent first (the line numbers left out).
            let problems = Dictionary(grouping: output.split(separator: "\n").map { $0.replacing(#/^[^:]+:[0-9]+: /#, with: "") }) { $0 }
                .map { (count: $0.value.count, problem: $0.key) }.sorted { $0.count > $1.count }.prefix(20)
            let summary = problems.map { "\($0.count)× \($0.problem)" }.joined(separator: "\n")
            Issue.record("captured payloads break Docs/asyncapi.yaml (exit \(String(describing: status))):\n\(summary)")
        }
        print(
            "stack contract: \(messages.count) messages on \(topics.count) topics captured through the ACL'd broker"
                + (status == 0 ? ", every one but the 5 bad inputs published valid against Docs/asyncapi.yaml" : ""))
    }
}
