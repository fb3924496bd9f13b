import Bus
import BusTesting
import DashboardService
import Foundation
import InMemoryBus
import Logging
import ServiceLifecycle
import ServiceRuntime
import Testing

@Suite("Dashboard on the in-memory bus: page, state, events, commands, nearest")
struct DashboardServiceTests {
    let broker = InMemoryBroker()
    let topics = Topics()

    private func client(_ name: String = "device") -> InMemoryBus {
        let bus = InMemoryBus(broker: broker, clientID: "\(name)-\(UUID().uuidString)", cleanStart: true)
        bus.connect()
        return bus
    }

    private func serviceBus() -> InMemoryBus {
        let bus = InMemoryBus(broker: broker, clientID: "dashboard-\(UUID().uuidString)")
        bus.connect()
        return bus
    }

    @Test("Serves the page and its files with their content types, and 404 for anything else")
    func page() async throws {
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let index = try await dashboard.get("/")
            #expect(index.status == 200)
            #expect(index.contentType == "text/html; charset=utf-8")
            #expect(index.body.lowercased().contains("<html"))
            let missing = try await dashboard.get("/no-such-file.js")
            #expect(missing.status == 404)
            let health = try await dashboard.getJSON("/healthz")
            #expect(health.body["status"] as? String == "ok")
        }
    }

    @Test("The state holds the retained messages published before the dashboard started")
    func retainedState() async throws {
        let device = client()
        try await device.send("stepcompass/walker-1/heading", #"{"status": "ok", "heading": 271.4, "north": "true", "cardinal": "W"}"#, retain: true)
        try await device.send("stepcompass/walker-1/position", #"{"x": 12.34, "y": -4.46, "steps": 20, "updates": 2}"#, retain: true)
        try await device.send("stepcompass/markers/status", #"{"state": "ready", "count": 44, "rejected": 0}"#, retain: true)
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let state = try await dashboard.getJSON("/api/state")
            #expect(state.body["devices"] as? [String] == ["walker-1"])
            #expect(state.body["selected"] as? String == "walker-1")
            let view = try #require(state.body["device"] as? [String: Any])
            #expect(view["headingText"] as? String == "Heading: 271° W")
            #expect(view["positionText"] as? String == "Position: (12.3 m, –4.5 m)")
            let markers = try #require(state.body["markers"] as? [String: Any])
            #expect(markers["statusText"] as? String == "Markers: 44 markers ready")
            let unknown = try await dashboard.getJSON("/api/state?device=nobody")
            #expect(unknown.body["device"] == nil)
        }
    }

    @Test("An activity message reaches the device's view in /api/state; the activity error topic is not a device")
    func activityState() async throws {
        let activity = client("activity")
        try await activity.send("stepcompass/errors/activity", #"{"error": "not a device"}"#, retain: true)
        try await activity.send(
            "stepcompass/walker-1/activity",
            #"""
            {"timestamp": "2026-11-22T10:15:30.250Z", "timeZone": "UTC", "today": 4321,
             "days": [8000, 12000, 3000, 0, 9000, 7000, 4321], "weekTotal": 43321, "dailyMean": 6188.7,
             "band": "lowActive", "cadence": 104, "authorization": "authorized", "guidance": null,
             "suggestion": {"playlist": {"id": "focused", "name": "Focused", "description": "Steady.",
                            "tempo": [95, 115], "link": "https://music.example/focused"}, "reason": "Walking."}}
            """#, retain: true)
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let state = try await dashboard.getJSON("/api/state")
            #expect(state.body["devices"] as? [String] == ["walker-1"])
            let view = try #require(state.body["device"] as? [String: Any])
            let panel = try #require(view["activity"] as? [String: Any])
            #expect(panel["todayText"] as? String == "Today: 4,321 steps")
            #expect(panel["cadenceText"] as? String == "Cadence: 104 steps/min")
            #expect(panel["bandText"] as? String == "Low active")
            #expect((panel["days"] as? [[String: Any]])?.count == 7)
            let playlist = try #require(panel["playlist"] as? [String: Any])
            #expect(playlist["link"] as? String == "https://music.example/focused")
            #expect(playlist["tempoText"] as? String == "95–115 BPM")
        }
    }

    @Test("The event stream sends a snapshot, then each change of the followed device")
    func eventStream() async throws {
        let device = client()
        try await device.send("stepcompass/walker-1/heading", #"{"status": "ok", "heading": 350}"#, retain: true)
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let events = try await dashboard.events(
                while: {
                    try await device.send("stepcompass/walker-1/heading", #"{"status": "ok", "heading": 10, "cardinal": "N"}"#, qos: .atMostOnce)
                },
                until: { events in
                    events.contains { $0.name == "device" && $0.object["headingText"] as? String == "Heading: 10° N" }
                })
            let names = events.map(\.name)
            #expect(Array(names.prefix(5)) == ["devices", "device", "path", "markers", "services"])
            let last = try #require(events.last { $0.name == "device" })
            // 350° then 10°: the rose goes on to 370°, the short way round.
            #expect(last.object["roseRotation"] as? Double == 370)
        }
    }

    @Test("A stream without a device follows the first device as soon as it appears")
    func followsFirstDevice() async throws {
        let device = client()
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let events = try await dashboard.events(
                while: {
                    try await device.send("stepcompass/phone-7/steps", #"{"steps": 5}"#)
                },
                until: { events in
                    events.contains { $0.name == "device" && $0.object["stepsText"] as? String == "Steps: 5" }
                })
            let list = try #require(events.last { $0.name == "devices" })
            #expect(list.object["selected"] as? String == "phone-7")
        }
    }

    @Test("A stream for one device ignores the others' changes")
    func chosenDevice() async throws {
        let device = client()
        try await device.send("stepcompass/a/steps", #"{"steps": 1}"#, retain: true)
        try await device.send("stepcompass/b/steps", #"{"steps": 1}"#, retain: true)
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let events = try await dashboard.events(
                "?device=b",
                while: {
                    try await device.send("stepcompass/a/steps", #"{"steps": 99}"#)
                    try await device.send("stepcompass/b/steps", #"{"steps": 2}"#)
                },
                until: { events in
                    events.contains { $0.name == "device" && $0.object["stepsText"] as? String == "Steps: 2" }
                })
            let views = events.filter { $0.name == "device" }
            #expect(views.allSatisfy { $0.object["id"] as? String == "b" })
        }
    }

    @Test(
        "Commands are checked, then published as the contract's commands",
        arguments: [
            ("/api/devices/walker-1/bearing-lock", #"{"action": "lock"}"#, "stepcompass/walker-1/cmd/bearing-lock", #"{"action":"lock"}"#),
            (
                "/api/devices/walker-1/bearing-lock", #"{"action": "lock", "bearing": 45, "threshold": 15}"#,
                "stepcompass/walker-1/cmd/bearing-lock", #"{"action":"lock","bearing":45,"threshold":15}"#
            ),
            ("/api/devices/walker-1/bearing-lock", #"{"action": "unlock"}"#, "stepcompass/walker-1/cmd/bearing-lock", #"{"action":"unlock"}"#),
            ("/api/devices/walker-1/settings", #"{"north": "magnetic"}"#, "stepcompass/walker-1/cmd/settings", #"{"north":"magnetic"}"#),
            ("/api/devices/walker-1/calibrate", #"{"action": "reset"}"#, "stepcompass/walker-1/cmd/calibrate", #"{"action":"reset"}"#),
            ("/api/devices/walker-1/reset-position", "{}", "stepcompass/walker-1/cmd/reset-position", "{}"),
            ("/api/markers/refresh", "{}", "stepcompass/markers/cmd/refresh", "{}"),
        ])
    func commands(path: String, body: String, topic: String, payload: String) async throws {
        let listener = client("listener")
        let commands = try await listener.subscribe(to: TopicFilter("stepcompass/#"))
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let answer = try await dashboard.post(path, body)
            #expect(answer.status == 202)
            #expect(answer.body["published"] as? String == topic)
            var received: BusMessage?
            while let message = await commands.next(timeout: .seconds(3)) {
                if message.topic == topic {
                    received = message
                    break
                }
            }
            let message = try #require(received)
            #expect(message.text == payload)
            #expect(message.qos == .atLeastOnce)
        }
    }

    @Test(
        "Bad commands get a 400 with the reason and publish nothing",
        arguments: [
            ("/api/devices/walker-1/bearing-lock", #"{"action": "spin"}"#, "`action` must be \"lock\" or \"unlock\""),
            ("/api/devices/walker-1/bearing-lock", #"{"action": "lock", "bearing": 360}"#, "`bearing` must be a number with 0 ≤ bearing < 360"),
            ("/api/devices/walker-1/bearing-lock", #"{"action": "lock", "threshold": 0}"#, "`threshold` must be a number with 0 < threshold ≤ 180"),
            ("/api/devices/walker-1/bearing-lock", #"{"action": "lock", "bearing": "north"}"#, "`bearing` must be a number with 0 ≤ bearing < 360"),
            ("/api/devices/walker-1/settings", #"{"north": "grid"}"#, "`north` must be \"true\" or \"magnetic\""),
            ("/api/devices/walker-1/calibrate", "[1, 2]", "the body must be a JSON object"),
            ("/api/devices/walker-1/calibrate", "{not json", "the body is not JSON of at most 16384 bytes"),
            ("/api/devices/errors/calibrate", #"{"action": "start"}"#, "invalid device id 'errors': 1 to 64 of A-Z a-z 0-9 _ -, not a reserved name"),
        ])
    func badCommands(path: String, body: String, reason: String) async throws {
        let listener = client("listener")
        let commands = try await listener.subscribe(to: TopicFilter("stepcompass/+/cmd/#"))
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let answer = try await dashboard.post(path, body)
            #expect(answer.status == 400)
            let error = try #require(answer.body["error"] as? [String: Any])
            #expect(error["code"] as? String == "badRequest")
            #expect(error["message"] as? String == reason)
        }
        #expect(await commands.next(timeout: .milliseconds(200)) == nil)
    }

    @Test("Nearest markers: the marker service's reply, its errors as HTTP statuses, and a timeout")
    func nearest() async throws {
        let markers = client("markers")
        let requests = try await markers.subscribe(to: TopicFilter("stepcompass/markers/nearest"))
        let responder = Task {
            for await request in requests {
                let body = try JSONSerialization.jsonObject(with: request.payload) as? [String: Any] ?? [:]
                let reply: String
                switch body["id"] as? String {
                case "a":
                    #expect(body["count"] as? Int == 3)
                    #expect(request.properties.responseTopic?.hasPrefix("stepcompass/replies/") == true)
                    reply =
                        #"{"origin": {"id": "a", "name": "Marienplatz", "latitude": 48.137, "longitude": 11.575}, "nearest": [{"id": "b", "name": "Viktualienmarkt", "latitude": 48.135, "longitude": 11.576, "distanceMiles": 0.15}, {"id": "c", "name": "Odeonsplatz", "latitude": 48.142, "longitude": 11.577, "distanceMiles": 0.4}]}"#
                case "missing": reply = #"{"error": {"code": "notFound", "message": "no marker with id 'missing'"}}"#
                case "early": reply = #"{"error": {"code": "notReady", "message": "the markers are still loading"}}"#
                default: continue  // "silent": no answer at all
                }
                try await markers.respond(to: request, payload: Data(reply.utf8))
            }
        }
        defer { responder.cancel() }
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let found = try await dashboard.getJSON("/api/markers/a/nearest?count=3")
            #expect(found.status == 200)
            #expect(found.body["title"] as? String == "Nearest to Marienplatz")
            let items = try #require(found.body["items"] as? [[String: Any]])
            #expect(items.map { $0["distanceText"] as? String } == ["0.15 mi", "0.40 mi"])
            #expect(items.map { $0["name"] as? String } == ["Viktualienmarkt", "Odeonsplatz"])

            let missing = try await dashboard.getJSON("/api/markers/missing/nearest")
            #expect(missing.status == 404)
            #expect((missing.body["error"] as? [String: Any])?["message"] as? String == "no marker with id 'missing'")
            #expect(try await dashboard.getJSON("/api/markers/early/nearest").status == 503)
            #expect(try await dashboard.getJSON("/api/markers/a/nearest?count=51").status == 400)
            let silent = try await dashboard.getJSON("/api/markers/silent/nearest")
            #expect(silent.status == 504)
            #expect((silent.body["error"] as? [String: Any])?["code"] as? String == "timeout")
        }
    }

    @Test("History: the activity service's reply as JSON or CSV, its errors as HTTP statuses, and a timeout")
    func history() async throws {
        let activity = client("activity")
        let requests = try await activity.subscribe(to: TopicFilter("stepcompass/activity/history"))
        let responder = Task {
            for await request in requests {
                let body = try JSONSerialization.jsonObject(with: request.payload) as? [String: Any] ?? [:]
                let reply: String
                switch body["device"] as? String {
                case "walker-1":
                    #expect(body["granularity"] as? String == "hour")
                    #expect(body["from"] as? String == "2026-07-01T00:00:00Z")
                    reply =
                        #"{"device": "walker-1", "granularity": "hour", "timeZone": "UTC", "buckets": [{"start": "2026-07-01T08:00:00.000Z", "steps": 420}, {"start": "2026-07-01T09:00:00.000Z", "steps": 1337}]}"#
                case "wrong": reply = #"{"error": {"code": "badRequest", "message": "'from' must be before 'to'"}}"#
                default: continue  // "silent": no answer at all
                }
                try await activity.respond(to: request, payload: Data(reply.utf8))
            }
        }
        defer { responder.cancel() }
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let query = "from=2026-07-01T00:00:00Z&to=2026-07-02T00:00:00Z&granularity=hour"
            let json = try await dashboard.getJSON("/api/devices/walker-1/history?\(query)")
            #expect(json.status == 200)
            #expect((json.body["buckets"] as? [[String: Any]])?.count == 2)
            let csv = try await dashboard.get("/api/devices/walker-1/history?\(query)&format=csv")
            #expect(csv.status == 200)
            #expect(csv.contentType == "text/csv; charset=utf-8")
            #expect(csv.body == "start,steps\n2026-07-01T08:00:00.000Z,420\n2026-07-01T09:00:00.000Z,1337\n")
            let wrong = try await dashboard.getJSON("/api/devices/wrong/history?\(query)")
            #expect(wrong.status == 400)
            #expect((wrong.body["error"] as? [String: Any])?["message"] as? String == "'from' must be before 'to'")
            #expect(try await dashboard.getJSON("/api/devices/silent/history").status == 504)
            #expect(try await dashboard.getJSON("/api/devices/bad.id/history").status == 400)
        }
    }

    @Test("Unreadable messages are reported on the dashboard's error topic and the dashboard goes on")
    func badInput() async throws {
        let device = client()
        let errors = try await device.subscribe(to: TopicFilter("stepcompass/errors/dashboard"))
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            try await device.send("stepcompass/walker-1/heading", "not json")
            try await device.send("stepcompass/bad.id/steps", #"{"steps": 1}"#)
            try await device.send("stepcompass/walker-1/position", #"{"x": "north", "y": 0}"#)
            let reports = await errors.collect(3, timeout: .seconds(3))
            let reasons = reports.compactMap { (try? JSONSerialization.jsonObject(with: $0.payload) as? [String: Any])?["error"] as? String }
            #expect(
                reasons == [
                    "unreadable heading message: not valid JSON", "invalid device id 'bad.id'",
                    "unreadable position message: `x` is not a Double",
                ])
            // A good message after the bad ones is still shown: wait for the page's state to show it.
            try await device.send("stepcompass/walker-1/steps", #"{"steps": 3}"#)
            var stepsText: String?
            var looks = 0
            let deadline = ContinuousClock.now + .seconds(30)
            repeat {
                if looks > 0 { try await Task.sleep(for: .milliseconds(20)) }
                looks += 1
                let state = try await dashboard.getJSON("/api/state")
                stepsText = (state.body["device"] as? [String: Any])?["stepsText"] as? String
            } while stepsText != "Steps: 3" && ContinuousClock.now < deadline
            #expect(stepsText == "Steps: 3")
        }
    }

    @Test("A port in use is a clear startup error")
    func portInUse() async throws {
        try await DashboardHarness.with(bus: serviceBus()) { dashboard in
            let second = BusRuntime(
                service: "dashboard", topics: Topics(), logger: .init(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                bus: serviceBus())
            let group = try buildDashboard(configuration: DashboardConfiguration(httpPort: dashboard.port), runtime: second)
            await #expect(throws: DashboardServiceError.cannotListen(host: "127.0.0.1", port: dashboard.port, reason: "the port is already in use")) {
                try await group.run()
            }
        }
    }

    @Test("Options out of range are refused with the option's name")
    func configuration() {
        #expect(throws: DashboardServiceError.invalidConfiguration("--http-port must be 0...65535, got 70000")) {
            try DashboardConfiguration(httpPort: 70_000).validate()
        }
        #expect(throws: DashboardServiceError.invalidConfiguration("--max-event-rate must be in (0, 100] per second, got 0.0")) {
            try DashboardConfiguration(maxEventRate: 0).validate()
        }
    }
}
