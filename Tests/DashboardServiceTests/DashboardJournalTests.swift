import Bus
import BusTesting
import DashboardKit
import DashboardService
import Foundation
import InMemoryBus
import Logging
import NIOHTTP1
import ServiceRuntime
import Testing

/// The journal's messages and replies as the tests publish them.
enum JournalFixtures {
    static let walk =
        #"{"id": "w-1", "name": "Morning", "started": "2026-07-01T10:00:00.000Z", "stopped": null, "distance": 1234.5, "routePoints": 40, "points": 3, "photos": 1}"#
    static let journal = #"{"timestamp": "2026-07-01T10:20:00.000Z", "walk": \#(walk), "recording": true, "reason": null}"#
    static let paused =
        #"{"timestamp": "2026-07-01T10:21:00.000Z", "walk": \#(walk), "recording": false, "reason": "the location permission is denied; nothing is recorded or sent to a photo service"}"#
    static let noWalk = #"{"timestamp": "2026-07-01T11:00:00.000Z", "walk": null, "recording": false, "reason": null}"#
    static let found = #"""
        {"timestamp": "2026-07-01T10:05:00.000Z", "walk": "w-1", "point": 0, "distance": 100, "latitude": 48.137, "longitude": 11.575,
         "status": "found", "photo": {"id": "wikimedia:123", "source": "wikimedia", "title": "Marienplatz in winter", "author": "Jane Doe",
         "license": "CC BY-SA 4.0", "licenseUrl": "https://creativecommons.org/licenses/by-sa/4.0/",
         "pageUrl": "https://commons.wikimedia.org/wiki/File:Marienplatz.jpg", "imageUrl": "/journal/photos/wikimedia-123.png",
         "width": 640, "height": 480, "latitude": 48.1371, "longitude": 11.5751, "taken": null}}
        """#
    static let none =
        #"{"timestamp": "2026-07-01T10:10:00.000Z", "walk": "w-1", "point": 1, "distance": 200, "latitude": 48.138, "longitude": 11.576, "status": "none", "photo": null}"#
    static let pending =
        #"{"timestamp": "2026-07-01T10:15:00.000Z", "walk": "w-1", "point": 2, "distance": 300, "latitude": 48.139, "longitude": 11.577, "status": "pending", "photo": null, "retryAt": "2026-07-01T10:16:30.000Z", "error": "HTTP 503 Service Unavailable from commons.wikimedia.org"}"#
}

@Suite("Dashboard: the walk journal's panel, walks API and photos")
struct DashboardJournalTests {
    let broker = InMemoryBroker()

    private func client(_ name: String) -> InMemoryBus {
        let bus = InMemoryBus(broker: broker, clientID: "\(name)-\(UUID().uuidString)", cleanStart: true)
        bus.connect()
        return bus
    }

    @Test("The journal and its photo points reach /api/state and the journal event; the journal's error topic is not a device")
    func journalState() async throws {
        let journal = client("journal")
        try await journal.send("stepcompass/errors/journal", #"{"error": "not a device"}"#, retain: true)
        try await journal.send("stepcompass/walker-1/journal", JournalFixtures.journal, retain: true)
        try await DashboardHarness.with(bus: client("dashboard")) { dashboard in
            // Photo points are not retained: they arrive while the dashboard runs.
            try await journal.send("stepcompass/walker-1/journal/photo", JournalFixtures.found)
            try await journal.send("stepcompass/walker-1/journal/photo", JournalFixtures.none)
            var state = try await dashboard.getJSON("/api/state")
            // Until both points are in (the deadline only ends a failing run).
            let deadline = ContinuousClock.now + .seconds(60)
            while ((state.body["journal"] as? [String: Any])?["points"] as? [Any])?.count != 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                state = try await dashboard.getJSON("/api/state")
            }
            #expect(state.body["devices"] as? [String] == ["walker-1"])
            let panel = try #require(state.body["journal"] as? [String: Any])
            #expect(panel["reported"] as? Bool == true)
            #expect(panel["walkOn"] as? Bool == true)
            #expect(panel["statusText"] as? String == "Recording")
            let walk = try #require(panel["walk"] as? [String: Any])
            #expect(walk["title"] as? String == "Morning")
            #expect(walk["distanceText"] as? String == "1.23 km")
            #expect(walk["countsText"] as? String == "3 photo points, 1 photo")
            #expect(walk["gpxUrl"] as? String == "/api/devices/walker-1/walks/w-1.gpx")
            let points = try #require(panel["points"] as? [[String: Any]])
            #expect(points.map { $0["point"] as? Int } == [1, 0])
            #expect(points.first?["placeholderText"] as? String == "No photo near here")
            let photo = try #require(points.last?["photo"] as? [String: Any])
            #expect(photo["imageUrl"] as? String == "/journal/photos/wikimedia-123.png")
            #expect(photo["authorText"] as? String == "by Jane Doe")

            // Live: a pending point arrives as a journal event (newest first), and the device's view is not resent.
            let events = try await dashboard.events(
                while: {
                    try await journal.send("stepcompass/walker-1/journal/photo", JournalFixtures.pending)
                },
                until: { events in
                    events.contains { $0.name == "journal" && (($0.object["journal"] as? [String: Any])?["points"] as? [Any])?.count == 3 }
                })
            let first = try #require(events.first { $0.name == "journal" })
            #expect(first.object["device"] as? String == "walker-1")
            let last = try #require(events.last { $0.name == "journal" }?.object["journal"] as? [String: Any])
            let pending = try #require((last["points"] as? [[String: Any]])?.first)
            #expect(pending["placeholderText"] as? String == "No photo yet")
            #expect(pending["noteText"] as? String == "Next try at 10:16 UTC; last error: HTTP 503 Service Unavailable from commons.wikimedia.org")
            #expect(events.filter { $0.name == "device" }.count == 1)
        }
    }

    @Test("A device without a journal message shows that the journal has not reported")
    func notReported() async throws {
        let device = client("device")
        try await device.send("stepcompass/walker-1/steps", #"{"steps": 3}"#, retain: true)
        try await DashboardHarness.with(bus: client("dashboard")) { dashboard in
            let events = try await dashboard.events(until: { events in events.contains { $0.name == "journal" } })
            let panel = try #require(events.first { $0.name == "journal" }?.object["journal"] as? [String: Any])
            #expect(panel["reported"] as? Bool == false)
            #expect(panel["walkOn"] as? Bool == false)
            #expect((panel["statusText"] as? String)?.hasPrefix("The journal has not reported") == true)
        }
    }

    @Test("Walks: the list, a walk's route and points, its GPX download, the journal's errors as statuses, and a timeout")
    func walks() async throws {
        let journal = client("journal")
        let requests = try await journal.subscribe(to: TopicFilter("stepcompass/journal/walks"))
        let seen = LockedValue<[Data]>([])
        let responder = Task {
            for await request in requests {
                let body = try JSONSerialization.jsonObject(with: request.payload) as? [String: Any] ?? [:]
                seen.withLock { $0.append(request.payload) }
                #expect(request.properties.responseTopic?.hasPrefix("stepcompass/replies/") == true)
                let reply: String
                switch (body["device"] as? String, body["walk"] as? String, body["format"] as? String) {
                case ("walker-1", nil, _):
                    reply =
                        #"{"device": "walker-1", "walks": [\#(JournalFixtures.walk), {"id": "w-0", "name": null, "started": "2026-06-30T08:00:00.000Z", "stopped": "2026-06-30T09:00:00.000Z", "distance": 850, "routePoints": 90, "points": 8, "photos": 6}]}"#
                case ("walker-1", "w-1", "json"):
                    reply =
                        #"{"device": "walker-1", "walk": \#(JournalFixtures.walk), "route": [{"time": "2026-07-01T10:00:00.000Z", "latitude": 48.137, "longitude": 11.575, "elevation": 519, "source": "gps", "distance": 0}, {"time": "2026-07-01T10:01:00.000Z", "latitude": 48.138, "longitude": 11.576, "elevation": null, "source": "deadReckoning", "distance": 133.2}], "points": [\#(JournalFixtures.found), \#(JournalFixtures.none)]}"#
                case ("walker-1", "w-1", "gpx"):
                    reply =
                        #"{"device": "walker-1", "walk": "w-1", "gpx": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"StepCompass\"></gpx>\n"}"#
                case ("walker-1", "nope", _): reply = #"{"error": {"code": "notFound", "message": "walker-1 has no walk 'nope'"}}"#
                case ("walker-1", "broken", _):
                    reply = #"{"error": {"code": "unavailable", "message": "the journal cannot read its database now; try again shortly"}}"#
                case ("walker-2", nil, _): reply = #"{"error": {"code": "badRequest", "message": "'limit' is 0; expected 1 to 500"}}"#
                default: continue  // "silent": the journal is not running
                }
                try await journal.respond(to: request, payload: Data(reply.utf8))
            }
        }
        defer { responder.cancel() }
        try await DashboardHarness.with(bus: client("dashboard")) { dashboard in
            let list = try await dashboard.getJSON("/api/devices/walker-1/walks?limit=20")
            #expect(list.status == 200)
            let walks = try #require(list.body["walks"] as? [[String: Any]])
            #expect(walks.map { $0["id"] as? String } == ["w-1", "w-0"])
            #expect(walks.map { $0["title"] as? String } == ["Morning", "Walk of 30 Jun 2026"])
            #expect(walks.map { $0["distanceText"] as? String } == ["1.23 km", "850 m"])
            #expect(walks.map { $0["dateText"] as? String } == ["1 Jul 2026, 10:00 UTC", "30 Jun 2026, 08:00 UTC"])
            #expect(walks.map { $0["active"] as? Bool } == [true, false])
            #expect(walks.last?["gpxUrl"] as? String == "/api/devices/walker-1/walks/w-0.gpx")
            #expect(walks.last?["photos"] as? Int == 6)

            let walk = try await dashboard.getJSON("/api/devices/walker-1/walks/w-1")
            #expect(walk.status == 200)
            #expect((walk.body["walk"] as? [String: Any])?["id"] as? String == "w-1")
            let route = try #require(walk.body["route"] as? [[String: Any]])
            #expect(route.map { $0["source"] as? String } == ["gps", "deadReckoning"])
            #expect(route.first?["latitude"] as? Double == 48.137)
            let points = try #require(walk.body["points"] as? [[String: Any]])
            #expect(points.map { $0["point"] as? Int } == [1, 0])
            #expect(points.map { $0["status"] as? String } == ["none", "found"])
            #expect((points.last?["photo"] as? [String: Any])?["pageUrl"] as? String == "https://commons.wikimedia.org/wiki/File:Marienplatz.jpg")

            let gpx = try await dashboard.getWithHeaders("/api/devices/walker-1/walks/w-1.gpx")
            #expect(gpx.status == 200)
            #expect(gpx.headers.first(name: "content-type") == "application/gpx+xml")
            #expect(gpx.headers.first(name: "content-disposition") == #"attachment; filename="walker-1-w-1.gpx""#)
            #expect(String(decoding: gpx.body, as: UTF8.self).hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))

            let missing = try await dashboard.getJSON("/api/devices/walker-1/walks/nope")
            #expect(missing.status == 404)
            #expect((missing.body["error"] as? [String: Any])?["message"] as? String == "walker-1 has no walk 'nope'")
            #expect(try await dashboard.getJSON("/api/devices/walker-1/walks/nope.gpx").status == 404)
            #expect(try await dashboard.getJSON("/api/devices/walker-1/walks/broken").status == 503)
            let refused = try await dashboard.getJSON("/api/devices/walker-2/walks?limit=0")
            #expect(refused.status == 400)
            #expect((refused.body["error"] as? [String: Any])?["code"] as? String == "badRequest")

            // Refused by the dashboard, never sent.
            #expect(try await dashboard.getJSON("/api/devices/walker-1/walks?limit=many").status == 400)
            #expect(try await dashboard.getJSON("/api/devices/bad.id/walks").status == 400)
            #expect(try await dashboard.getJSON("/api/devices/walker-1/walks/w.1").status == 400)
            #expect(try await dashboard.getJSON("/api/devices/walker-1/walks/.gpx").status == 400)

            let silent = try await dashboard.getJSON("/api/devices/silent/walks")
            #expect(silent.status == 504)
            let error = try #require(silent.body["error"] as? [String: Any])
            #expect(error["code"] as? String == "timeout")
            #expect((error["message"] as? String)?.contains("may not be running (stepcompass-journal)") == true)
        }
        let bodies = seen.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        #expect(bodies.contains { $0["device"] as? String == "walker-1" && $0["limit"] as? Int == 20 && $0["walk"] == nil })
        #expect(bodies.contains { $0["walk"] as? String == "w-1" && $0["format"] as? String == "gpx" })
        #expect(!bodies.contains { $0["device"] as? String == "bad.id" || $0["walk"] as? String == "w.1" || $0["limit"] as? String != nil })
    }

    @Test("Walk commands are published on cmd/walk; a bad one is refused")
    func walkCommands() async throws {
        let listener = client("listener")
        let commands = try await listener.subscribe(to: TopicFilter("stepcompass/+/cmd/walk"))
        try await DashboardHarness.with(bus: client("dashboard")) { dashboard in
            for (body, payload) in [
                (#"{"action": "start"}"#, #"{"action":"start"}"#),
                (#"{"action": "start", "name": " Lunch walk "}"#, #"{"action":"start","name":"Lunch walk"}"#),
                (#"{"action": "stop"}"#, #"{"action":"stop"}"#),
            ] {
                let answer = try await dashboard.post("/api/devices/walker-1/walk", body)
                #expect(answer.status == 202)
                #expect(answer.body["published"] as? String == "stepcompass/walker-1/cmd/walk")
                let message = try #require(await commands.next(timeout: .seconds(3)))
                #expect(message.text == payload)
                #expect(message.qos == .atLeastOnce)
            }
            let bad = try await dashboard.post("/api/devices/walker-1/walk", #"{"action": "pause"}"#)
            #expect(bad.status == 400)
            #expect((bad.body["error"] as? [String: Any])?["message"] as? String == #"`action` must be "start" or "stop""#)
        }
        #expect(await commands.next(timeout: .milliseconds(200)) == nil)
    }

    @Test("Photos: served from the journal's cache with their types and a cache header; other names refused, missing ones 404")
    func photos() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-photos-\(UUID().uuidString)")
        let cache = folder.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = [("wikimedia-123.png", "image/png"), ("flickr-9_8.jpg", "image/jpeg"), ("a.gif", "image/gif"), ("B-2.webp", "image/webp")]
        for (index, (name, _)) in files.enumerated() {
            try Data([0x89, 0x50, 0x4E, 0x47, UInt8(index)]).write(to: cache.appendingPathComponent(name))
        }
        try Data("secret".utf8).write(to: folder.appendingPathComponent("secret.png"))
        try Data("text".utf8).write(to: cache.appendingPathComponent("notes.txt"))
        try FileManager.default.createDirectory(at: cache.appendingPathComponent("folder.png"), withIntermediateDirectories: true)
        let configuration = DashboardConfiguration(httpPort: 0, requestTimeout: 0.5, journalCacheDirectory: cache.path)
        try await DashboardHarness.with(bus: client("dashboard"), configuration: configuration) { dashboard in
            for (index, (name, type)) in files.enumerated() {
                let answer = try await dashboard.getWithHeaders("/journal/photos/\(name)")
                #expect(answer.status == 200, "\(name)")
                #expect(answer.headers.first(name: "content-type") == type)
                #expect(answer.headers.first(name: "cache-control") == "public, max-age=86400")
                #expect(answer.headers.first(name: "x-content-type-options") == "nosniff")
                #expect(answer.body == [0x89, 0x50, 0x4E, 0x47, UInt8(index)])
            }
            #expect(try await dashboard.get("/journal/photos/wikimedia-999.png").status == 404)
            #expect(try await dashboard.get("/journal/photos/folder.png").status == 404)
            for name in [
                "notes.txt", "secret", ".png", "a.b.png", "a%20b.png", "%2E%2E.png", "wikimedia-123.PNG",
                "wikimedia-123.png%00.txt", "x.jpeg", String(repeating: "a", count: 161) + ".png",
            ] {
                let answer = try await dashboard.getJSON("/journal/photos/\(name)")
                #expect(answer.status == 400, "\(name)")
                #expect((answer.body["error"] as? [String: Any])?["code"] as? String == "badRequest")
            }
            // A path that leaves the folder never reaches a file (the router or the name check stops it).
            for path in [
                "/journal/photos/..%2Fsecret.png", "/journal/photos/%2E%2E%2Fsecret.png", "/journal/photos/../secret.png",
                "/journal/photos/x/../../secret.png", "/journal/photos/",
            ] {
                let answer = try await dashboard.get(path)
                #expect(answer.status != 200, "\(path)")
                #expect(answer.body != "secret")
            }
        }
    }

    @Test("The journal-cache-dir setting: default, config key, and an empty value refused")
    func cacheDirectorySetting() throws {
        #expect(DashboardConfiguration.defaults.journalCacheDirectory == ".data/journal/photos")
        #expect(throws: DashboardServiceError.invalidConfiguration("--journal-cache-dir must not be empty")) {
            try DashboardConfiguration(journalCacheDirectory: "").validate()
        }
    }
}

@Suite("Journal panel view model")
struct JournalViewTests {
    private func apply(_ model: inout DashboardModel, _ kind: DashboardInput.Kind, _ json: String) throws {
        let input = try #require(try DashboardInput.decode(kind, device: "walker-1", payload: Array(json.utf8)))
        #expect(input.isJournal)
        model.apply(input)
    }

    @Test("Recording, paused and no walk; points newest first with photo or placeholder")
    func panel() throws {
        var model = DashboardModel()
        #expect(model.device("walker-1")?.journalView == nil)
        try apply(&model, .journalPhoto, JournalFixtures.found)
        try apply(&model, .journal, JournalFixtures.journal)
        try apply(&model, .journalPhoto, JournalFixtures.pending)
        try apply(&model, .journalPhoto, JournalFixtures.none)
        var view = try #require(model.device("walker-1")?.journalView)
        #expect(view.statusText == "Recording")
        #expect(view.walk?.dateText == "1 Jul 2026, 10:00 UTC")
        #expect(view.points.map(\.point) == [2, 1, 0])
        #expect(view.points.map(\.placeholderText) == ["No photo yet", "No photo near here", nil])
        #expect(view.points.map(\.distanceText) == ["At 300 m", "At 200 m", "At 100 m"])
        let photo = try #require(view.points.last?.photo)
        #expect(photo.title == "Marienplatz in winter")
        #expect(photo.license == "CC BY-SA 4.0")
        #expect(photo.licenseUrl == "https://creativecommons.org/licenses/by-sa/4.0/")
        #expect(photo.altText == "Photo: Marienplatz in winter")

        // The pending point is found later: it replaces the earlier message.
        try apply(&model, .journalPhoto, JournalFixtures.found.replacingOccurrences(of: #""point": 0"#, with: #""point": 2"#))
        view = try #require(model.device("walker-1")?.journalView)
        #expect(view.points.map(\.status) == ["found", "none", "found"])

        try apply(&model, .journal, JournalFixtures.paused)
        view = try #require(model.device("walker-1")?.journalView)
        #expect(view.walkOn && !view.recording)
        #expect(view.statusText == "Not recording: the location permission is denied; nothing is recorded or sent to a photo service")

        try apply(&model, .journal, JournalFixtures.noWalk)
        view = try #require(model.device("walker-1")?.journalView)
        #expect(view.statusText == "No walk on")
        #expect(!view.walkOn && view.walk == nil && view.points.isEmpty)
        // A late point of the stopped walk is not shown.
        try apply(&model, .journalPhoto, JournalFixtures.none)
        #expect(model.device("walker-1")?.journalView.points.isEmpty == true)
    }

    @Test("A new walk's points replace the old walk's")
    func newWalk() throws {
        var model = DashboardModel()
        try apply(&model, .journal, JournalFixtures.journal)
        try apply(&model, .journalPhoto, JournalFixtures.found)
        try apply(&model, .journal, JournalFixtures.journal.replacingOccurrences(of: #""id": "w-1""#, with: #""id": "w-2""#))
        #expect(model.device("walker-1")?.journalPoints.isEmpty == true)
        try apply(&model, .journalPhoto, JournalFixtures.none.replacingOccurrences(of: #""walk": "w-1""#, with: #""walk": "w-2""#))
        #expect(model.device("walker-1")?.journalView.points.map(\.point) == [1])
    }

    @Test("Links that are not http(s) are dropped; an image that is not the dashboard's path or http(s) is not shown")
    func unsafeLinks() throws {
        let report = JournalPhotoPoint(
            walk: "w-1", point: 4, distance: 1_500, status: "found",
            photo: JournalPhoto(
                title: " ", author: nil, license: "", licenseUrl: "javascript:alert(1)", pageUrl: "data:text/html,x",
                imageUrl: "/journal/photos/x.png"))
        let view = PhotoPointView(report: report)
        let photo = try #require(view.photo)
        #expect(photo.pageUrl == nil && photo.licenseUrl == nil)
        #expect(photo.title == "Untitled photo" && photo.license == "Licence unknown" && photo.authorText == nil)
        #expect(view.distanceText == "At 1.50 km")
        for image in ["javascript:alert(1)", "//evil.example/x.png", "/journal/photos/../x.png"] {
            var bad = report
            bad.photo?.imageUrl = image
            let shown = PhotoPointView(report: bad)
            #expect(shown.photo == nil, "\(image)")
            #expect(shown.placeholderText == "No photo yet")
        }
    }

    @Test("A walks reply is read whether `walk` is an object or (GPX) an id")
    func replies() throws {
        let detail = try WalksReply.decode(Array(#"{"device": "d", "walk": \#(JournalFixtures.walk), "route": [], "points": []}"#.utf8))
        #expect(detail.walk?.id == "w-1" && detail.walkID == "w-1")
        let gpx = try WalksReply.decode(Array(#"{"device": "d", "walk": "w-1", "gpx": "<gpx/>"}"#.utf8))
        #expect(gpx.walk == nil && gpx.walkID == "w-1" && gpx.gpx == "<gpx/>")
        let failure = try WalksReply.decode(Array(#"{"error": {"code": "notFound", "message": "no"}}"#.utf8))
        #expect(failure.error?.code == "notFound")
    }
}
