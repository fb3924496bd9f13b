import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import Testing

/// The real `stepcompass-activity` killed with SIGKILL in the middle of a burst of cumulative step counts: after a
/// restart the database opens, and each device's history holds exactly its last cumulative count — nothing lost,
/// nothing counted twice.
@Suite("Activity service killed mid-burst", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct ActivityKillTests {
    static let activity = ServiceExecutable(name: "stepcompass-activity")

    static func client(_ port: Int, _ id: String) async throws -> MosquittoBus {
        let configuration = MosquittoConfiguration(
            host: "127.0.0.1", port: port, clientID: id, cleanStart: true,
            reconnectDelay: .milliseconds(50), reconnectDelayMax: .milliseconds(200))
        let bus = try MosquittoBus(configuration: configuration, logger: Logger(label: "test.\(id)"))
        try await bus.connect(timeout: .seconds(10))
        return bus
    }

    /// Waits for the next `online` status.
    static func online(_ status: BusSubscription, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while let message = await status.next(before: deadline) {
            if String(decoding: message.payload, as: UTF8.self).contains("\"online\"") { return true }
        }
        return false
    }

    /// The sum of a device's day buckets, from a history request (nil: no reply or an error reply).
    static func storedSteps(_ device: String, prefix: String, bus: MosquittoBus, replies: BusSubscription, replyTo: String) async throws -> Int64? {
        let now = Date().timeIntervalSince1970
        let formatter = ISO8601DateFormatter()
        let correlation = UUID().uuidString
        let request =
            #"{"device":"\#(device)","from":"\#(formatter.string(from: Date(timeIntervalSince1970: now - 2 * 86_400)))","to":"\#(formatter.string(from: Date(timeIntervalSince1970: now + 2 * 86_400)))","granularity":"day","replyTo":"\#(replyTo)","correlationId":"\#(correlation)"}"#
        try await bus.publish(BusMessage(topic: "\(prefix)/activity/history", text: request, qos: .atLeastOnce))
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard let message = await replies.next(timeout: .seconds(2)),
                let object = try? JSONSerialization.jsonObject(with: message.payload) as? [String: Any],
                object["correlationId"] as? String == correlation
            else { continue }
            guard object["error"] == nil, let buckets = object["buckets"] as? [[String: Any]] else { return nil }
            return buckets.reduce(Int64(0)) { $0 + (($1["steps"] as? NSNumber)?.int64Value ?? 0) }
        }
        return nil
    }

    @Test("SIGKILL mid-burst, restart: every device's history equals its last cumulative count")
    func killMidBurst() async throws {
        try await withBroker { broker in
            let prefix = "ak\(UUID().uuidString.prefix(6))"
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("activity-kill-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: folder) }
            let watcher = try await Self.client(broker.port, "watch-\(prefix)")
            let status = try await watcher.subscribe(to: try TopicFilter("\(prefix)/services/activity/status"))
            let replyTo = "\(prefix)/test/replies"
            let replies = try await watcher.subscribe(to: try TopicFilter(replyTo), qos: .atLeastOnce)
            let publisher = try await Self.client(broker.port, "pub-\(prefix)")

            let first = try await Self.activity.start(port: broker.port, prefix: prefix, arguments: ["--data-dir", folder.path])
            #expect(await Self.online(status), "stepcompass-activity did not come online: \(first.output)")

            // A burst of cumulative counts for each device, interleaved; the service is killed two thirds of the way
            // through and the rest of the burst is published while it is down.
            let devices = (1...6).map { "kill-\($0)" }
            let rounds = 400
            func count(_ device: Int, _ round: Int) -> Int { round * (device + 2) }
            for round in 1...rounds {
                for (index, device) in devices.enumerated() {
                    try await publisher.publish(
                        BusMessage(
                            topic: "\(prefix)/\(device)/steps", text: #"{"steps":\#(count(index, round))}"#, qos: .atLeastOnce))
                }
                if round == rounds / 3 {
                    // The first instance has written steps before it is killed.
                    try await publisher.flush()
                    var stored: Int64 = 0
                    let deadline = ContinuousClock.now + .seconds(20)
                    while stored == 0, ContinuousClock.now < deadline {
                        stored = try await Self.storedSteps(devices[0], prefix: prefix, bus: publisher, replies: replies, replyTo: replyTo) ?? 0
                        if stored == 0 { try await Task.sleep(for: .milliseconds(100)) }  // a request every 0.1 s, not back to back
                    }
                    #expect(stored > 0, "the first instance stored nothing: \(first.output)")
                }
                if round == 2 * rounds / 3 {
                    // Killed while the counts just published are still arriving.
                    first.signal(SIGKILL)
                    #expect(await first.waitForExit() == 128 + SIGKILL)
                }
            }
            try await publisher.flush()

            let second = try await Self.activity.start(port: broker.port, prefix: prefix, arguments: ["--data-dir", folder.path])
            #expect(await Self.online(status), "stepcompass-activity did not come back online (database): \(second.output)")
            // The final cumulative counts, after the restart.
            for (index, device) in devices.enumerated() {
                try await publisher.publish(
                    BusMessage(
                        topic: "\(prefix)/\(device)/steps", text: #"{"steps":\#(count(index, rounds + 1))}"#, qos: .atLeastOnce))
            }
            try await publisher.flush()

            for (index, device) in devices.enumerated() {
                let expected = Int64(count(index, rounds + 1))
                var stored: Int64?
                let deadline = ContinuousClock.now + .seconds(20)
                repeat {
                    stored = try await Self.storedSteps(device, prefix: prefix, bus: publisher, replies: replies, replyTo: replyTo)
                    if stored == expected { break }
                    try await Task.sleep(for: .milliseconds(100))
                } while ContinuousClock.now < deadline
                #expect(stored == expected, "\(device): \(String(describing: stored)) steps stored, \(expected) reported: \(second.output)")
            }
            // Still exact a moment later (nothing replayed on top).
            try await Task.sleep(for: .milliseconds(500))
            for (index, device) in devices.enumerated() {
                let stored = try await Self.storedSteps(device, prefix: prefix, bus: publisher, replies: replies, replyTo: replyTo)
                #expect(stored == Int64(count(index, rounds + 1)), "\(device) after a pause: \(String(describing: stored))")
            }
            #expect(second.isRunning)
            second.signal(SIGTERM)
            #expect(await second.waitForExit(timeout: .seconds(15)) == 0, "did not exit 0: \(second.output)")
            await publisher.disconnect()
            await watcher.disconnect()
        }
    }
}
