import Bus
import BusTesting
import Foundation
import InMemoryBus
import ServiceRuntime
import Testing

@testable import StepCompassClient

@Suite("The journal from the client: walks, GPX files, starting and stopping walks")
struct JournalClientTests {
    /// A stand-in journal answering every `journal/walks` request with `reply(request)` over MQTT 5.
    private func fakeJournal(_ pair: InMemoryPair, seen: Transcript, reply: @escaping @Sendable ([String: Any]) -> String) async throws -> Task<
        Void, Never
    > {
        let requests = try await pair.services.subscribe(to: TopicFilter("stepcompass/journal/walks"))
        let services = pair.services
        return Task {
            for await request in requests {
                seen.append(request.text)
                let body = (try? JSONSerialization.jsonObject(with: request.payload) as? [String: Any]) ?? [:]
                _ = try? await services.respond(to: request, payload: Data(reply(body).utf8))
            }
        }
    }

    static let walks =
        #"{"device":"phone-1","walks":["#
        + #"{"id":"7c9e6679-7425-40de-944b-e07fc1f90ae7","name":"Evening & lake","started":"2026-11-23T17:05:00.000Z","stopped":null,"distance":412.6,"routePoints":40,"points":4,"photos":3},"#
        + #"{"id":"3f2a9c1e-0b7d-4e55-9a64-2d1f0c8b7a10","name":null,"started":"2026-11-22T08:00:00.000Z","stopped":"2026-11-22T09:12:30.000Z","distance":4235.2,"routePoints":610,"points":42,"photos":40},"#
        + #"{"id":"a1","name":"Zürich old town","started":"2026-11-23T07:30:00.000Z","stopped":"2026-11-23T08:01:00.000Z","distance":0,"routePoints":1,"points":0,"photos":0}"#
        + #"]}"#

    @Test("walks asks the journal for the device's walks and lists them newest first")
    func listing() async throws {
        let pair = InMemoryPair()
        let seen = Transcript()
        let journal = try await fakeJournal(pair, seen: seen) { _ in Self.walks }
        defer { journal.cancel() }
        let list = try await JournalRequester(bus: pair.client, topics: pair.topics).walks(of: "phone-1", limit: 10)
        #expect(try list.walks().map(\.id) == ["7c9e6679-7425-40de-944b-e07fc1f90ae7", "a1", "3f2a9c1e-0b7d-4e55-9a64-2d1f0c8b7a10"])
        #expect(
            try list.table() == [
                "id                                    name             started (UTC)     stopped (UTC)     distance  photos",
                "7c9e6679-7425-40de-944b-e07fc1f90ae7  Evening & lake   2026-11-23 17:05  on                   413 m       3",
                "a1                                    Zürich old town  2026-11-23 07:30  2026-11-23 08:01       0 m       0",
                "3f2a9c1e-0b7d-4e55-9a64-2d1f0c8b7a10  —                2026-11-22 08:00  2026-11-22 09:12   4.24 km      40",
            ])
        #expect(String(decoding: list.payload, as: UTF8.self) == Self.walks)
        let request = try #require(seen.all.first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.utf8)) as? [String: Any])
        #expect(body["device"] as? String == "phone-1")
        #expect(body["limit"] as? Int == 10)
        #expect(body["walk"] == nil)
        #expect(body["format"] == nil)
        #expect((body["replyTo"] as? String)?.hasPrefix("stepcompass/replies/stepcompass-cli-test/") == true)
        #expect(body["correlationId"] is String)
    }

    @Test("points asks for one walk and returns its photo points in order; an error reply is an error")
    func points() async throws {
        let pair = InMemoryPair()
        let seen = Transcript()
        let journal = try await fakeJournal(pair, seen: seen) { body in
            guard body["walk"] as? String == "a1" else { return #"{"error":{"code":"notFound","message":"no walk b2"}}"# }
            return
                #"{"device":"phone-1","walk":{"id":"a1","name":null,"started":"2026-11-23T07:30:00.000Z","stopped":null,"distance":210,"routePoints":20,"points":2,"photos":1},"route":[],"points":["#
                + #"{"walk":"a1","point":1,"distance":100,"status":"found","photo":{"id":"wikimedia:7"}},"#
                + #"{"walk":"a1","point":2,"distance":200,"status":"none"}]}"#
        }
        defer { journal.cancel() }
        let requester = JournalRequester(bus: pair.client, topics: pair.topics)
        let points = try await requester.points(of: "a1", device: "phone-1")
        #expect(points.map(\.point) == [1, 2])
        #expect(points.map { $0.photo?.id } == ["wikimedia:7", nil])
        let request = try #require(seen.all.first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.utf8)) as? [String: Any])
        #expect(body["walk"] as? String == "a1" && body["format"] == nil)
        await #expect(throws: StepCompassClientError.self) { try await requester.points(of: "b2", device: "phone-1") }
    }

    @Test("no walks yet: a note; an error reply is an error with the journal's words")
    func emptyAndErrorList() throws {
        let empty = try WalkList(payload: Data(#"{"device":"phone-1","walks":[]}"#.utf8))
        #expect(try empty.table() == ["id  name  started (UTC)  stopped (UTC)  distance  photos", "(no walks yet)"])
        let failed = try WalkList(
            payload: Data(#"{"error":{"code":"unavailable","message":"the journal cannot read its database now; try again shortly"}}"#.utf8))
        #expect(
            throws: StepCompassClientError(
                .errorReply, "the journal answered: the journal cannot read its database now; try again shortly (unavailable)")
        ) {
            _ = try failed.table()
        }
        #expect(throws: StepCompassClientError.self) { try WalkList(payload: Data(#"{"device":"phone-1"}"#.utf8)) }
    }

    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="StepCompass" xmlns="http://www.topografix.com/GPX/1/1">
          <wpt lat="47.3778000" lon="8.5421000">
            <name>Grossmünster</name>
          </wpt>
          <trk>
            <trkseg>
              <trkpt lat="47.3769000" lon="8.5417000"><time>2026-11-22T08:00:00Z</time></trkpt>
              <trkpt lat="47.3770000" lon="8.5418000"><time>2026-11-22T08:00:04.500Z</time></trkpt>
            </trkseg>
          </trk>
        </gpx>

        """

    /// A stand-in journal that knows one walk of phone-1 and answers GPX requests as the real one does.
    private func gpxJournal(_ pair: InMemoryPair, seen: Transcript) async throws -> Task<Void, Never> {
        try await fakeJournal(pair, seen: seen) { body in
            let walk = body["walk"] as? String ?? ""
            guard body["device"] as? String == "phone-1", walk == "3f2a9c1e" else {
                return #"{"error":{"code":"notFound","message":"\#(body["device"] as? String ?? "") has no walk '\#(walk)'"}}"#
            }
            let document = String(decoding: try! JSONEncoder().encode(Self.gpx), as: UTF8.self)
            return #"{"device":"phone-1","walk":"3f2a9c1e","gpx":\#(document)}"#
        }
    }

    @Test("gpx asks for the walk's GPX and writes it to the file")
    func gpxToFile() async throws {
        let pair = InMemoryPair()
        let seen = Transcript()
        let journal = try await gpxJournal(pair, seen: seen)
        defer { journal.cancel() }
        let reply = try await JournalRequester(bus: pair.client, topics: pair.topics).gpx(of: "3f2a9c1e", device: "phone-1")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-gpx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("3f2a9c1e.gpx").path
        #expect(try reply.write(to: file) == "wrote walk 3f2a9c1e to \(file) (2 track points, 1 waypoint)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == Self.gpx)
        #expect(try reply.document() == Self.gpx)
        let request = try #require(seen.all.first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.utf8)) as? [String: Any])
        #expect(body["device"] as? String == "phone-1")
        #expect(body["walk"] as? String == "3f2a9c1e")
        #expect(body["format"] as? String == "gpx")
        #expect(body["limit"] == nil)
        // A folder that is not there: a clear error, nothing written.
        #expect(throws: StepCompassClientError(.writeFailed, "cannot write \(folder.path)/missing/x.gpx: No such file or directory")) {
            _ = try reply.write(to: "\(folder.path)/missing/x.gpx")
        }
    }

    @Test("an unknown walk: the journal's notFound reply is an error, and no file is written")
    func unknownWalk() async throws {
        let pair = InMemoryPair()
        let journal = try await gpxJournal(pair, seen: Transcript())
        defer { journal.cancel() }
        let reply = try await JournalRequester(bus: pair.client, topics: pair.topics).gpx(of: "nope", device: "phone-1")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-\(UUID().uuidString).gpx").path
        do {
            _ = try reply.write(to: file)
            Issue.record("an unknown walk was written")
        } catch {
            #expect(error == StepCompassClientError(.errorReply, "the journal answered: phone-1 has no walk 'nope' (notFound)"))
            #expect(error.exitCode == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test("no journal: walks and gpx end with the reply timeout and the hint to start it")
    func noJournal() async throws {
        let pair = InMemoryPair()
        let requester = JournalRequester(bus: pair.client, topics: pair.topics, timeout: .milliseconds(200))
        let expected = StepCompassClientError(.noReply, "no reply from the journal within 0.2 s: is stepcompass-journal running?")
        await #expect(throws: expected) { _ = try await requester.walks(of: "phone-1") }
        await #expect(throws: expected) { _ = try await requester.gpx(of: "3f2a9c1e", device: "phone-1") }
        #expect(expected.exitCode == 69)
    }

    @Test("bad requests are refused before anything is sent")
    func invalidRequests() async throws {
        let pair = InMemoryPair()
        let before = pair.broker.publishedCount
        let requester = JournalRequester(bus: pair.client, topics: pair.topics)
        await #expect(throws: StepCompassClientError.self) { _ = try await requester.walks(of: "phone-1", limit: 0) }
        await #expect(throws: StepCompassClientError.self) { _ = try await requester.walks(of: "phone-1", limit: 501) }
        await #expect(throws: StepCompassClientError.self) { _ = try await requester.walks(of: "a/b") }
        for walk in ["", "a/b", "..", "with space", String(repeating: "x", count: 101)] {
            await #expect(throws: StepCompassClientError.self) { _ = try await requester.gpx(of: walk, device: "phone-1") }
        }
        await #expect(throws: StepCompassClientError.self) {
            _ = try await CommandSender(bus: pair.client, topics: pair.topics)
                .send(.walk(start: true, name: String(repeating: "n", count: 121)), to: "phone-1")
        }
        #expect(pair.broker.publishedCount == before)
    }

    // MARK: Starting and stopping

    /// A stand-in journal: handles `cmd/walk` as the real one does and publishes the retained `journal` message when
    /// the walk changes (nothing when a start finds a walk on, or a stop finds none).
    private func walkingJournal(_ pair: InMemoryPair, device: String, on walk: String? = nil) async throws -> Task<Void, Never> {
        let topic = pair.topics.device(device, .journal)
        if let walk { try await pair.publish(topic, Self.state(walk: walk, started: "2026-11-23T07:00:00.000Z"), retain: true) }
        let commands = try await pair.services.subscribe(to: TopicFilter(pair.topics.device(device, .commandWalk)))
        let services = pair.services
        return Task {
            var on = walk != nil
            for await command in commands {
                guard case .walk(let start, let name)? = try? DeviceCommand.decode(.commandWalk, json: command.payload), start != on else { continue }
                on = start
                let state =
                    start
                    ? Self.state(walk: "new-walk", name: name, started: Timestamp.format(Date()), recording: false)
                    : #"{"timestamp":"\#(Timestamp.format(Date()))","walk":null,"recording":false,"reason":null}"#
                try? await services.publish(BusMessage(topic: topic, text: state, qos: .atLeastOnce, retain: true))
            }
        }
    }

    static func state(walk: String, name: String? = nil, started: String, recording: Bool = true) -> String {
        let name = name.map { #""\#($0)""# } ?? "null"
        let reason = recording ? "null" : #""waiting for the device's location permission (stepcompass/{device}/permissions)""#
        return
            #"{"timestamp":"\#(started)","walk":{"id":"\#(walk)","name":\#(name),"started":"\#(started)","stopped":null,"distance":1234.5,"routePoints":3,"points":1,"photos":1},"recording":\#(recording),"reason":\#(reason)}"#
    }

    @Test("walk start publishes the command and is confirmed by the journal's new walk")
    func startConfirmed() async throws {
        let pair = InMemoryPair()
        // The walk of yesterday is over: the retained message says no walk is on.
        try await pair.publish(
            "stepcompass/phone-1/journal", #"{"timestamp":"2026-11-22T09:12:30.000Z","walk":null,"recording":false,"reason":null}"#, retain: true)
        let observer = try await pair.services.subscribe(to: TopicFilter("stepcompass/+/cmd/#"))
        let journal = try await walkingJournal(pair, device: "phone-1")
        defer { journal.cancel() }
        let outcome = try await CommandSender(bus: pair.client, topics: pair.topics, confirmationWindow: .seconds(5))
            .send(.walk(start: true, name: "Morning loop"), to: "phone-1")
        let sent = try #require(await observer.next(timeout: .seconds(2)))
        #expect(sent.topic == "stepcompass/phone-1/cmd/walk")
        #expect(sent.text == #"{"action":"start","name":"Morning loop"}"#)
        #expect(sent.qos == .atLeastOnce)
        #expect(outcome.lines.count == 2)
        #expect(outcome.lines[0] == "started a walk of phone-1 named 'Morning loop'")
        #expect(outcome.lines[1].hasPrefix("confirmed: walk 'Morning loop' (new-walk) on since "))
        #expect(
            outcome.lines[1].hasSuffix(
                " UTC, 1.23 km, 1 photo; not recording: waiting for the device's location permission (stepcompass/{device}/permissions)"))
    }

    @Test("walk stop is confirmed by no walk")
    func stopConfirmed() async throws {
        let pair = InMemoryPair()
        let journal = try await walkingJournal(pair, device: "phone-1", on: "old-walk")
        defer { journal.cancel() }
        let outcome = try await CommandSender(bus: pair.client, topics: pair.topics, confirmationWindow: .seconds(5))
            .send(.walk(start: false, name: nil), to: "phone-1")
        #expect(outcome.lines == ["stopped the walk of phone-1", "confirmed: no walk on"])
    }

    @Test("a live update of the walk that was on does not confirm a start; a walk started after it does")
    func olderWalkDoesNotConfirm() {
        let reader = EffectReader.journal(start: true)
        let before = Data(#"{"timestamp":"2026-11-23T07:00:00.000Z","walk":null,"recording":false,"reason":null}"#.utf8)
        #expect(reader.read(before, false)?.evidence == .other)
        let reader2 = EffectReader.journal(start: true)
        let old = Data(Self.state(walk: "old", started: "2026-11-23T07:00:00.000Z").utf8)
        #expect(reader2.read(old, false)?.evidence == .unchanged)
        #expect(reader2.read(old, true)?.evidence == .other)
        #expect(reader2.read(Data(Self.state(walk: "new", started: "2026-11-23T07:00:01.000Z").utf8), true)?.evidence == .effect)
        #expect(reader2.read(Data("not json".utf8), true) == nil)
        let stop = EffectReader.journal(start: false)
        #expect(stop.read(old, false)?.evidence == .other)
        #expect(stop.read(old, true)?.evidence == .other)
        #expect(stop.read(before, true)?.evidence == .effect)
    }

    @Test("a start while a walk is on, or a stop while none is, says nothing changed at once")
    func unchanged() async throws {
        let pair = InMemoryPair()
        let journal = try await walkingJournal(pair, device: "phone-1", on: "old-walk")
        defer { journal.cancel() }
        let outcome = try await CommandSender(bus: pair.client, topics: pair.topics, confirmationWindow: .seconds(20))
            .send(.walk(start: true, name: nil), to: "phone-1")
        #expect(
            outcome.lines == [
                "started a walk of phone-1",
                "unchanged: walk old-walk on since 2026-11-23 07:00 UTC, 1.23 km, 1 photo (it was on before: stop it first with `stepcompass walk stop`)",
            ])
        // "unchanged" (not "unconfirmed" after the 20 s window) shows it answered from the state before the command.

        let other = InMemoryPair()
        try await other.publish(
            "stepcompass/phone-2/journal", #"{"timestamp":"2026-11-22T09:12:30.000Z","walk":null,"recording":false,"reason":null}"#, retain: true)
        let stop = try await CommandSender(bus: other.client, topics: other.topics, confirmationWindow: .seconds(20))
            .send(.walk(start: false, name: nil), to: "phone-2")
        #expect(stop.lines == ["stopped the walk of phone-2", "unchanged: no walk was on"])
    }

    @Test("no journal: the walk command is sent but not confirmed, with the hint to start the journal")
    func startWithoutJournal() async throws {
        let pair = InMemoryPair()
        let outcome = try await CommandSender(bus: pair.client, topics: pair.topics, confirmationWindow: .milliseconds(300))
            .send(.walk(start: true, name: nil), to: "phone-1")
        #expect(outcome.status == .unconfirmed(waited: .milliseconds(300), service: "journal", lastSeen: nil))
        #expect(outcome.lines == ["started a walk of phone-1", "sent, but not confirmed within 0.3 s: is stepcompass-journal running?"])
    }

    @Test("a walk command the journal rejects fails with its reason")
    func rejected() async throws {
        let pair = InMemoryPair()
        let commands = try await pair.services.subscribe(to: TopicFilter("stepcompass/w/cmd/walk"))
        let services = pair.services
        let journal = Task {
            for await command in commands {
                let report = #"{"timestamp":"2026-11-22T10:00:00.000Z","topic":"\#(command.topic)","error":"`name` must be a string","payload":"{}"}"#
                try? await services.publish(BusMessage(topic: "stepcompass/errors/journal", text: report))
            }
        }
        defer { journal.cancel() }
        await #expect(
            throws: StepCompassClientError(.errorReply, "the journal service rejected the command on stepcompass/w/cmd/walk: `name` must be a string")
        ) {
            _ = try await CommandSender(bus: pair.client, topics: pair.topics).send(.walk(start: true, name: "x"), to: "w")
        }
    }
}
