import Bus
import BusTesting
import Configuration
import Foundation
import NIOHTTP1
import ServiceRuntime
import Testing

@Suite("buildJournal over the in-memory bus, a real local photo server, SQLite")
struct JournalServiceTests {
    @Test("a walk: the route from fixes, a photo every 100 m with its attribution and cached image, stop, list and GPX")
    func walk() async throws {
        let fixture = try await JournalFixture()
        try await fixture.start()
        try await fixture.permit("walker")
        try await fixture.command("walker", #"{"action": "start", "name": "Round the park"}"#)
        let started = try #require(await fixture.journal("walker") { $0.walk != nil })
        #expect(started.walk?.name == "Round the park")
        #expect(started.recording)
        for step in 0...13 {  // 0 to 260 m north, a fix every 20 m
            try await fixture.fix("walker", north: Double(step) * 20, seconds: Double(step) * 15)
        }
        let first = try #require(await fixture.photo("walker") { $0.point == 1 && $0.status == "found" })
        let second = try #require(await fixture.photo("walker") { $0.point == 2 && $0.status == "found" })
        #expect(abs(try #require(first.distance) - 100) < 0.01)
        #expect(abs(try #require(second.distance) - 200) < 0.01)
        #expect(abs(try #require(first.latitude) - (52.5 + 100 / 111_194.9)) < 0.0002)
        let photo = try #require(first.photo)
        #expect(photo.source == "wikimedia")
        #expect(photo.author == "Local photographer")
        #expect(photo.license == "CC BY-SA 4.0")
        #expect(try #require(photo.pageUrl).hasPrefix(fixture.photos.baseURL + "/wiki/"))
        #expect(try #require(photo.imageUrl).hasPrefix("/journal/photos/wikimedia-"))
        let file = fixture.cacheFolder.appendingPathComponent(String(try #require(photo.imageUrl).dropFirst("/journal/photos/".count)))
        let bytes = try Data(contentsOf: file)
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(second.photo?.id != photo.id)
        // The search was Wikimedia's geosearch around the point, with a descriptive User-Agent.
        let search = try #require(fixture.photos.searches.first)
        #expect(search.path.contains("generator=geosearch"))
        #expect(search.path.contains("ggsnamespace=6"))
        #expect(search.header("User-Agent")?.contains("StepCompass") == true)

        let walking = try #require(await fixture.journal("walker") { ($0.walk?.photos ?? 0) == 2 })
        let distance = try #require(walking.walk?.distance)
        #expect(distance >= 250 && distance <= 261)
        try await fixture.command("walker", #"{"action": "stop"}"#)
        let stopped = try #require(await fixture.journal("walker") { $0.walk == nil })
        #expect(!stopped.recording)

        let list = try await fixture.request(#"{"device": "walker"}"#)
        let walks = try #require(list["walks"] as? [[String: Any]])
        #expect(walks.count == 1)
        let id = try #require(walks.first?["id"] as? String)
        #expect(walks.first?["stopped"] is String)
        #expect(walks.first?["photos"] as? Int == 2)
        let one = try await fixture.request(#"{"device": "walker", "walk": "\#(id)"}"#)
        #expect((one["route"] as? [Any])?.count == 14)
        #expect((one["points"] as? [[String: Any]])?.map { $0["status"] as? String } == ["found", "found"])
        let gpx = try #require(try await fixture.request(#"{"device": "walker", "walk": "\#(id)", "format": "gpx"}"#)["gpx"] as? String)
        #expect(gpx.contains("<trkpt"))
        #expect(gpx.components(separatedBy: "<wpt ").count == 3)
        #expect(gpx.contains("<name>Round the park</name>"))
        let unknown = try await fixture.request(#"{"device": "walker", "walk": "nope"}"#)
        #expect((unknown["error"] as? [String: Any])?["code"] as? String == "notFound")
        try await fixture.stop()
    }

    @Test("back at places already visited, the next result: never the same photo twice in a walk")
    func neverTwice() async throws {
        let fixture = try await JournalFixture()
        try await fixture.start(["photo.every": 50])
        try await fixture.permit("looper")
        try await fixture.command("looper", #"{"action": "start"}"#)
        _ = try #require(await fixture.journal("looper") { $0.walk != nil })
        // 100 m north and back, twice: the photo points fall on the same few places again and again.
        var seconds = 0.0
        for north in [0, 25, 50, 75, 100, 75, 50, 25, 0, 25, 50, 75, 100, 75, 50, 25, 0] {
            try await fixture.fix("looper", north: Double(north), seconds: seconds)
            seconds += 20
        }
        var ids: [String] = []
        var statuses: [Int: String] = [:]
        while statuses.count < 8, let message = await fixture.photo("looper", where: { $0.status != "pending" }) {
            statuses[message.point] = message.status
            if let id = message.photo?.id { ids.append(id) }
        }
        #expect(statuses.count == 8)
        #expect(ids.count >= 5)
        #expect(Set(ids).count == ids.count, "a photo came twice: \(ids)")
        try await fixture.stop()
    }

    @Test("without the location permission nothing is recorded and no photo service is asked; the message says why")
    func privacy() async throws {
        let fixture = try await JournalFixture()
        try await fixture.start()
        try await fixture.permit("private", location: "denied")
        try await fixture.command("private", #"{"action": "start"}"#)
        let paused = try #require(await fixture.journal("private") { $0.walk != nil })
        #expect(!paused.recording)
        #expect(paused.reason?.contains("denied") == true)
        for step in 0...12 { try await fixture.fix("private", north: Double(step) * 20, seconds: Double(step) * 15) }
        // Granted now: from here on, and only from here, the route is recorded.
        try await fixture.permit("private")
        let recording = try #require(await fixture.journal("private") { $0.recording })
        #expect(recording.walk?.distance == 0)
        #expect(fixture.photos.requests.isEmpty)
        for step in 13...20 { try await fixture.fix("private", north: Double(step) * 20, seconds: Double(step) * 15) }
        let photo = try #require(await fixture.photo("private") { $0.status == "found" })
        #expect(photo.point == 1)
        #expect(try #require(photo.latitude) > 52.5 + 340 / 111_194.9)  // 100 m after the permission, not from the start
        try await fixture.stop()
    }

    @Test("inaccurate fixes are left out; where GPS is poor the dead-reckoned position continues the route")
    func accuracyAndDeadReckoning() async throws {
        let fixture = try await JournalFixture()
        try await fixture.start()
        try await fixture.permit("dr")
        try await fixture.command("dr", #"{"action": "start"}"#)
        _ = try #require(await fixture.journal("dr") { $0.walk != nil })
        try await fixture.fix("dr", north: 0, seconds: 0)
        try await fixture.fix("dr", north: 40, seconds: 30)
        try await fixture.fix("dr", north: 500, seconds: 60, accuracy: 80)  // poor: ignored
        // The position service's frame: x north, y east, metres; 20 s and more after the last good fix.
        for (index, x) in [10.0, 30, 50, 70, 90, 110].enumerated() {
            let time = Timestamp.format(Date(timeIntervalSince1970: JournalFixture.start + 50 + Double(index) * 10))
            try await fixture.publish("stepcompass/dr/position", #"{"timestamp": "\#(time)", "x": \#(x), "y": 0, "steps": \#(index * 10)}"#)
        }
        let photo = try #require(await fixture.photo("dr") { $0.status == "found" })
        #expect(photo.point == 1)
        let walk = try #require(await fixture.journal("dr") { ($0.walk?.distance ?? 0) > 130 })
        let distance = try #require(walk.walk?.distance)
        #expect(distance < 150, "the inaccurate fix 500 m away counted: \(distance)")
        let walks = try await fixture.request(#"{"device": "dr"}"#)
        let id = try #require((walks["walks"] as? [[String: Any]])?.first?["id"] as? String)
        let route = try #require(try await fixture.request(#"{"device": "dr", "walk": "\#(id)"}"#)["route"] as? [[String: Any]])
        #expect(route.contains { $0["source"] as? String == "deadReckoning" })
        #expect(route.contains { $0["source"] as? String == "gps" })
        try await fixture.stop()
    }

    @Test("a walk that is on goes on after a restart, its distance and photo points continuing")
    func restart() async throws {
        let fixture = try await JournalFixture()
        try await fixture.start()
        try await fixture.permit("restart")
        try await fixture.command("restart", #"{"action": "start"}"#)
        let before = try #require(await fixture.journal("restart") { $0.walk != nil })
        for step in 0...6 { try await fixture.fix("restart", north: Double(step) * 20, seconds: Double(step) * 15) }
        _ = try #require(await fixture.photo("restart") { $0.point == 1 && $0.status == "found" })
        try await fixture.stop(finally: false)
        try await fixture.start()
        for step in 7...11 { try await fixture.fix("restart", north: Double(step) * 20, seconds: Double(step) * 15) }
        let second = try #require(await fixture.photo("restart") { $0.point == 2 })
        #expect(second.walk == before.walk?.id)
        let after = try #require(await fixture.journal("restart") { ($0.walk?.distance ?? 0) >= 219 })
        #expect(after.walk?.id == before.walk?.id)
        try await fixture.stop()
    }

    @Test("bad input is reported on the error topic and the journal carries on")
    func badInput() async throws {
        let fixture = try await JournalFixture()
        try await fixture.start()
        try await fixture.permit("bad")
        try await fixture.command("bad", #"{"action": "jump"}"#)
        let report = try #require(await fixture.errors.next(timeout: .seconds(10)))
        #expect(report.text.contains("action"))
        try await fixture.publish("stepcompass/bad/location", #"{"latitude": 123, "longitude": 0}"#)
        #expect(await fixture.errors.next(timeout: .seconds(10))?.text.contains("latitude") == true)
        try await fixture.publish("stepcompass/bad/location", "not json")
        #expect(await fixture.errors.next(timeout: .seconds(10)) != nil)
        try await fixture.publish("stepcompass/journal/walks", #"{"device": "bad", "walk": "x", "format": "kml", "replyTo": "test/r"}"#)
        #expect(await fixture.errors.next(timeout: .seconds(10))?.text.contains("format") == true)
        try await fixture.command("bad", #"{"action": "start"}"#)
        #expect(await fixture.journal("bad") { $0.walk != nil } != nil)
        try await fixture.stop()
    }

    @Test("input outside the contract is rejected as position, activity and the compass reject it, and loses nothing else")
    func contractChecks() async throws {
        let fixture = try await JournalFixture()
        try await fixture.start()
        try await fixture.permit("strict")
        try await fixture.command("strict", #"{"action": "start"}"#)
        _ = try #require(await fixture.journal("strict") { $0.recording })
        // A permission outside the contract's values is not taken (the granted one stays), nor echoed.
        try await fixture.permit("strict", location: "sometimes")
        let permission = try #require(await fixture.errors.next(timeout: .seconds(10)))
        #expect(permission.text.contains("'location' is 'sometimes'; expected authorized, denied, notDetermined, restricted or unavailable"))
        // A fractional step count, with the position and activity services' wording.
        try await fixture.publish("stepcompass/strict/steps", #"{"steps": 2.5}"#)
        #expect(await fixture.errors.next(timeout: .seconds(10))?.text.contains("'steps' is 2.5; a count must be a whole number") == true)
        try await fixture.publish("stepcompass/strict/steps", #"{"steps": 3, "timestamp": "soon"}"#)
        #expect(await fixture.errors.next(timeout: .seconds(10))?.text.contains("'timestamp' is 'soon', not an ISO 8601 date") == true)
        try await fixture.fix("strict", north: 0, seconds: 0)
        // An altitude outside the contract's range: the fix 400 m away is not part of the route.
        try await fixture.fix("strict", north: 400, seconds: 10, altitude: 900_000)
        #expect(await fixture.errors.next(timeout: .seconds(10))?.text.contains("'altitude' is 900000.0, outside -1000.0...850000.0") == true)
        // A malformed position timestamp is reported, not taken as now: the position 1 km away is not recorded.
        try await fixture.publish("stepcompass/strict/position", #"{"timestamp": "yesterday", "x": 1000, "y": 0}"#)
        #expect(await fixture.errors.next(timeout: .seconds(10))?.text.contains("'timestamp' is 'yesterday', not an ISO 8601 date") == true)
        // The walk goes on, recorded (the permission is still granted), from the good fixes only.
        for step in 1...6 { try await fixture.fix("strict", north: Double(step) * 20, seconds: 20 + Double(step) * 15) }
        let photo = try #require(await fixture.photo("strict") { $0.status == "found" })
        #expect(photo.point == 1)
        try await fixture.command("strict", #"{"action": "stop"}"#)
        let stopped = try #require(await fixture.journal("strict") { $0.walk == nil })
        #expect(!stopped.recording)
        let walks = try await fixture.request(#"{"device": "strict"}"#)
        let walk = try #require((walks["walks"] as? [[String: Any]])?.first)
        let distance = try #require(walk["distance"] as? Double)
        #expect(abs(distance - 120) < 1, "a rejected fix or position counted: \(distance)")
        let id = try #require(walk["id"] as? String)
        let route = try #require(try await fixture.request(#"{"device": "strict", "walk": "\#(id)"}"#)["route"] as? [[String: Any]])
        #expect(route.count == 7)
        #expect(route.allSatisfy { $0["source"] as? String == "gps" })
        try await fixture.stop()
    }

    @Test("--auto: the first steps after a rest start a walk (the first count seen is a baseline), a rest stops it")
    func auto() async throws {
        let fixture = try await JournalFixture()
        try await fixture.start(["auto": true, "rest.seconds": 2])
        try await fixture.permit("auto")
        // Steps stamped long ago (a simulator's clock): the rest is measured on the receive clock, so the walk
        // starts and stays on while steps keep coming.
        try await fixture.publish("stepcompass/auto/steps", #"{"steps": 10, "timestamp": "2026-07-01T10:00:00.000Z"}"#)
        #expect(await fixture.journal("auto", timeout: .milliseconds(700)) { $0.walk != nil } == nil, "a resting total started a walk")
        try await fixture.publish("stepcompass/auto/steps", #"{"steps": 11, "timestamp": "2026-07-01T10:00:01.000Z"}"#)
        _ = try #require(await fixture.journal("auto") { $0.walk != nil })
        for count in 12...15 {
            try await fixture.publish("stepcompass/auto/steps", #"{"steps": \#(count), "timestamp": "2026-07-01T10:00:0\#(count - 10).000Z"}"#)
            #expect(await fixture.journal("auto", timeout: .milliseconds(900)) { $0.walk == nil } == nil, "stopped while steps came")
        }
        let stopped = await fixture.journal("auto", timeout: .seconds(20)) { $0.walk == nil }
        #expect(stopped != nil, "the walk did not stop after 2 s of rest")
        try await fixture.stop()
    }

    @Test("the location permission withdrawn mid-walk: nothing more is recorded or sent to the photo service")
    func revokedMidWalk() async throws {
        let fixture = try await JournalFixture()
        try await fixture.start()
        try await fixture.permit("revoked")
        try await fixture.command("revoked", #"{"action": "start"}"#)
        _ = try #require(await fixture.journal("revoked") { $0.walk != nil })
        for step in 0...6 { try await fixture.fix("revoked", north: Double(step) * 20, seconds: Double(step) * 15) }
        _ = try #require(await fixture.photo("revoked") { $0.point == 1 && $0.status == "found" })
        let before = try #require(await fixture.journal("revoked") { ($0.walk?.distance ?? 0) >= 119 })
        try await fixture.permit("revoked", location: "denied")
        let paused = try #require(await fixture.journal("revoked") { !$0.recording })
        #expect(paused.reason?.contains("denied") == true)
        let requests = fixture.photos.requests.count
        for step in 7...20 { try await fixture.fix("revoked", north: Double(step) * 20, seconds: Double(step) * 15) }
        // Cleared permissions (`stepcompass forget`) are no authorization either.
        try await fixture.publish("stepcompass/revoked/permissions", "", retain: true)
        try await fixture.command("revoked", #"{"action": "stop"}"#)
        let stopped = try #require(await fixture.journal("revoked") { $0.walk == nil })
        #expect(!stopped.recording)
        let list = try await fixture.request(#"{"device": "revoked"}"#)
        let walk = try #require((list["walks"] as? [[String: Any]])?.first)
        #expect(walk["distance"] as? Double == before.walk?.distance, "fixes were recorded after the permission was withdrawn")
        #expect(walk["points"] as? Int == 1)
        #expect(fixture.photos.requests.count == requests, "the photo service was asked after the permission was withdrawn")
        try await fixture.stop()
    }
}
