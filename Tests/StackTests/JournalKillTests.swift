import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import Synchronization
import Testing

/// The real `stepcompass-journal` killed with SIGKILL in the middle of a walk: after a restart the walk goes on (the
/// same walk, from the database), the fixes sent while it was down are in its route (its persistent session kept
/// them), and no photo comes twice.
@Suite("Journal killed mid-walk", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct JournalKillTests {
    static let journal = ServiceExecutable(name: "stepcompass-journal")

    /// A `journal/walks` reply for `request`, matched by its correlation id.
    static func walks(_ request: String, prefix: String, bus: MosquittoBus, replies: BusSubscription, replyTo: String) async throws -> [String: Any]?
    {
        let correlation = UUID().uuidString
        let body = request.dropLast() + #","replyTo":"\#(replyTo)","correlationId":"\#(correlation)"}"#
        try await bus.publish(BusMessage(topic: "\(prefix)/journal/walks", text: String(body), qos: .atLeastOnce))
        let reply = await replies.first(within: .seconds(10)) { message in
            (try? JSONSerialization.jsonObject(with: message.payload) as? [String: Any])?["correlationId"] as? String == correlation
        }
        return reply.flatMap { try? JSONSerialization.jsonObject(with: $0.payload) as? [String: Any] }
    }

    @Test("SIGKILL mid-walk, restart: the same walk goes on, nothing sent meanwhile is lost, no photo twice")
    func killMidWalk() async throws {
        let base = Mutex("")
        let photos = try await TestHTTPServer.start { request, _ in LocalPhotoAPI(baseURL: base.withLock { $0 }).reply(to: request.path) }
        base.withLock { $0 = photos.baseURL }
        try await withBroker { broker in
            let prefix = "jk\(UUID().uuidString.prefix(6))"
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-kill-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: folder) }
            let arguments = [
                "--data-dir", folder.path, "--cache-dir", folder.appendingPathComponent("photos").path,
                "--wikimedia-url", photos.baseURL + "/w/api.php", "--photo-every", "50",
            ]
            let client = try await ActivityKillTests.client(broker.port, "kill-\(prefix)")
            let status = try await client.subscribe(to: try TopicFilter("\(prefix)/services/journal/status"))
            let photoMessages = try await client.subscribe(to: try TopicFilter("\(prefix)/+/journal/photo"), qos: .atLeastOnce)
            let replyTo = "\(prefix)/test/replies"
            let replies = try await client.subscribe(to: try TopicFilter(replyTo), qos: .atLeastOnce)
            try await client.publish(
                BusMessage(
                    topic: "\(prefix)/runner/permissions", text: #"{"motion":"authorized","location":"authorized"}"#, qos: .atLeastOnce, retain: true)
            )

            let first = try await Self.journal.start(port: broker.port, prefix: prefix, arguments: arguments)
            #expect(await ActivityKillTests.online(status), "stepcompass-journal did not come online: \(first.output)")
            try await client.publish(
                BusMessage(topic: "\(prefix)/runner/cmd/walk", text: #"{"action":"start","name":"Interrupted"}"#, qos: .atLeastOnce))
            func fix(_ step: Int) async throws {
                let latitude = 52.5 + Double(step) * 10 / 111_194.9
                let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_782_900_000 + Double(step) * 6))
                try await client.publish(
                    BusMessage(
                        topic: "\(prefix)/runner/location",
                        text: #"{"timestamp":"\#(time)","latitude":\#(latitude),"longitude":13.4,"horizontalAccuracy":4}"#, qos: .atLeastOnce))
            }
            for step in 0...12 { try await fix(step) }  // 120 m: photo points at 50 and 100 m
            let before = await photoMessages.first(within: .seconds(20)) { $0.text.contains(#""point":2"#) && $0.text.contains(#""status":"found""#) }
            #expect(before != nil, "no photo for the second point before the kill: \(first.output)")
            let listed = try await Self.walks(#"{"device":"runner"}"#, prefix: prefix, bus: client, replies: replies, replyTo: replyTo)
            let walkID = try #require((listed?["walks"] as? [[String: Any]])?.first?["id"] as? String)

            first.signal(SIGKILL)
            #expect(await first.waitForExit() == 128 + SIGKILL)
            for step in 13...30 { try await fix(step) }  // sent while the journal is down: 300 m in all
            try await client.flush()

            let second = try await Self.journal.start(port: broker.port, prefix: prefix, arguments: arguments)
            #expect(await ActivityKillTests.online(status), "stepcompass-journal did not come back online: \(second.output)")
            let last = await photoMessages.first(within: .seconds(20)) {
                $0.text.contains(#""point":6"#) && !$0.text.contains(#""status":"pending""#)
            }
            #expect(last != nil, "the sixth point (300 m) never got its lookup: \(second.output)")

            let walk = try #require(
                try await Self.walks(#"{"device":"runner","walk":"\#(walkID)"}"#, prefix: prefix, bus: client, replies: replies, replyTo: replyTo))
            let summary = try #require(walk["walk"] as? [String: Any])
            #expect(summary["stopped"] is NSNull, "the walk did not go on after the restart")
            let distance = try #require(summary["distance"] as? Double)
            #expect(abs(distance - 300) < 1, "distance \(distance): fixes lost or counted twice")
            #expect((walk["route"] as? [Any])?.count == 31)
            let points = try #require(walk["points"] as? [[String: Any]])
            #expect(points.map { $0["point"] as? Int } == [1, 2, 3, 4, 5, 6])
            let ids = points.compactMap { ($0["photo"] as? [String: Any])?["id"] as? String }
            #expect(Set(ids).count == ids.count, "a photo came twice: \(ids)")
            second.signal(SIGTERM)
            #expect(await second.waitForExit(timeout: .seconds(15)) == 0, "did not exit 0: \(second.output)")
            await client.disconnect()
        }
        await photos.shutdown()
    }
}
