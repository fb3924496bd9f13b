import Bus
import BusTesting
import Foundation
import Testing

/// `stepcompass walks`, `walk` and `gpx`, the real binary against a real broker and a stand-in journal.
@Suite("The stepcompass binary and the journal on a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct JournalBinaryTests {
    private func requireBinary() throws {
        try #require(
            StepCompassExecutable.exists,
            "\(StepCompassExecutable.path) is missing: build it with `swift build --build-tests` (or --product stepcompass)")
    }

    /// Runs `body` with a broker where walker-9 has published and a stand-in journal answers `journal/walks` under
    /// `prefix` (a list for any request without a walk, the GPX of walk `w1`, notFound otherwise).
    private func withJournal(prefix: String, _ body: (Int) async throws -> Void) async throws {
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let journal = try await harness.makeClient(id: "journal-fake-\(prefix)", cleanStart: true, will: nil)
            try await journal.publish(
                BusMessage(
                    topic: "\(prefix)/walker-9/heading", text: #"{"status":"ok","heading":10}"#,
                    qos: .atLeastOnce, retain: true))
            let requests = try await journal.subscribe(to: TopicFilter("\(prefix)/journal/walks"))
            let responder = Task {
                for await request in requests {
                    let body = (try? JSONSerialization.jsonObject(with: request.payload) as? [String: Any]) ?? [:]
                    let reply: String
                    switch body["walk"] as? String {
                    case nil:
                        reply =
                            #"{"device":"walker-9","walks":[{"id":"w1","name":"Loop","started":"2026-11-23T08:00:00.000Z","stopped":"2026-11-23T08:30:00.000Z","distance":2500,"routePoints":300,"points":25,"photos":24}]}"#
                    case "w1":
                        reply =
                            #"{"device":"walker-9","walk":"w1","gpx":"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"StepCompass\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n  <trk>\n    <trkseg>\n    </trkseg>\n  </trk>\n</gpx>\n"}"#
                    case let walk?:
                        reply = #"{"error":{"code":"notFound","message":"walker-9 has no walk '\#(walk)'"}}"#
                    }
                    _ = try? await journal.respond(to: request, payload: Data(reply.utf8))
                }
            }
            do {
                try await body(broker.port)
            } catch {
                responder.cancel()
                await journal.close()
                throw error
            }
            responder.cancel()
            await journal.close()
        }
    }

    @Test("walks lists the only device's walks; gpx writes the file, or to standard output with -")
    func walksAndGPX() async throws {
        try requireBinary()
        try await withJournal(prefix: "j1") { port in
            let walks = try await StepCompassExecutable.run(["walks"], port: port, prefix: "j1")
            #expect(walks.status == 0, "\(walks.output)")
            #expect(
                walks.output == """
                    id  name  started (UTC)     stopped (UTC)     distance  photos
                    w1  Loop  2026-11-23 08:00  2026-11-23 08:30   2.50 km      24

                    """)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-cli-gpx-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("loop.gpx").path
            let written = try await StepCompassExecutable.run(["gpx", "w1", "walker-9", "--output", file], port: port, prefix: "j1")
            #expect(written.status == 0, "\(written.output)")
            #expect(written.output == "wrote walk w1 to \(file) (0 track points, 0 waypoints)\n")
            #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\""))
            let printed = try await StepCompassExecutable.run(["gpx", "w1", "--output", "-"], port: port, prefix: "j1")
            #expect(printed.status == 0)
            #expect(printed.output.hasPrefix("<?xml") && printed.output.hasSuffix("</gpx>\n"))
        }
    }

    @Test("gpx of an unknown walk: the journal's message and exit status 1; a bad walk id is a usage error")
    func unknownWalk() async throws {
        try requireBinary()
        try await withJournal(prefix: "j2") { port in
            let run = try await StepCompassExecutable.run(["gpx", "nope", "--output", "/nonexistent/never.gpx"], port: port, prefix: "j2")
            #expect(run.status == 1)
            #expect(run.output == "error: the journal answered: walker-9 has no walk 'nope' (notFound)\n")
            let usage = try await StepCompassExecutable.run(["gpx", "a/b"], port: port, prefix: "j2")
            #expect(usage.status == 64)
            #expect(usage.output.contains("'a/b' is not a walk id"))
            let twice = try await StepCompassExecutable.run(["walks", "walker-9", "--device", "walker-8"], port: port, prefix: "j2")
            #expect(twice.status == 64)
        }
    }

    @Test("no journal: walks ends with 69 and the hint; walk start is sent but not confirmed, with the hint")
    func noJournal() async throws {
        try requireBinary()
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let services = try await harness.makeClient(id: "services-nojournal", cleanStart: true, will: nil)
            try await services.publish(
                BusMessage(topic: "j3/walker-9/heading", text: #"{"status":"ok","heading":10}"#, qos: .atLeastOnce, retain: true))
            let walks = try await StepCompassExecutable.run(["walks", "--timeout", "0.5"], port: broker.port, prefix: "j3")
            #expect(walks.status == 69)
            #expect(walks.output == "error: no reply from the journal within 0.5 s: is stepcompass-journal running?\n")
            let start = try await StepCompassExecutable.run(["walk", "start", "--name", "Loop", "--wait", "0.5"], port: broker.port, prefix: "j3")
            await services.close()
            #expect(start.status == 0)
            #expect(
                start.output == "started a walk of walker-9 named 'Loop'\nsent, but not confirmed within 0.5 s: is stepcompass-journal running?\n")
        }
    }
}
