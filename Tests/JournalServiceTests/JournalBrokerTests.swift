import Bus
import BusTesting
import Configuration
import Foundation
import JournalService
import Logging
import MosquittoBus
import NIOHTTP1
import ServiceLifecycle
import ServiceRuntime
import StepCompassTesting
import Testing

/// The journal built by `buildJournal` over a real `MosquittoBus` and mosquitto, keeping its walks in a real
/// PostgreSQL server (initdb in a temporary folder), with a real local photo server that fails first: the route is kept,
/// the point waits, the photo comes, and the GPX is answered over MQTT 5 request/response.
@Suite("Journal on a real broker and PostgreSQL", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests && PostgresServerProcess.shouldRun))
struct JournalBrokerTests {
    private static let logger = Logger(label: "test.journal", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("a walk over mosquitto, stored in PostgreSQL; a failing photo server retried; GPX over MQTT 5")
    func walkOnBrokerAndPostgres() async throws {
        let database = try await PostgresServerProcess.launch(fsync: false)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-broker-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = try await PhotoServer.start()
        photos.breaking { _, index in index < 2 ? .status(.serviceUnavailable) : nil }
        do {
            try await withBroker { broker in
                let harness = MosquittoHarness(port: broker.port)
                let probe = try await harness.makeClient(id: "probe-journal", cleanStart: true, will: nil)
                let status = try await probe.subscribe(to: TopicFilter("stepcompass/services/journal/status"), qos: .atLeastOnce)
                let photoMessages = try await probe.subscribe(to: TopicFilter("stepcompass/+/journal/photo"), qos: .atLeastOnce)
                try await probe.publish(
                    BusMessage(
                        topic: "stepcompass/walker-1/permissions", text: #"{"motion": "authorized", "location": "authorized"}"#,
                        qos: .atLeastOnce, retain: true))
                let bus = try MosquittoBus(
                    configuration: MosquittoConfiguration(host: "127.0.0.1", port: broker.port, clientID: "stepcompass-journal-test"),
                    logger: Self.logger)
                let config = ConfigReader(
                    provider: InMemoryProvider(values: [
                        "database.url": .init(.string(database.url), isSecret: true),
                        "cache.dir": .init(.string(folder.appendingPathComponent("photos").path), isSecret: false),
                        "wikimedia.url": .init(.string(photos.wikimediaURL), isSecret: false),
                        "retry.base.seconds": 0.05,
                    ]))
                let group = try buildJournal(config: config, logger: Self.logger, bus: bus)
                try await withRunningGroup(group) {
                    #expect(await status.first { $0.text.contains(#""state":"online""#) } != nil, "the journal never said online")
                    try await probe.publish(
                        BusMessage(topic: "stepcompass/walker-1/cmd/walk", text: #"{"action": "start", "name": "Canal"}"#, qos: .atLeastOnce))
                    for step in 0...6 {
                        let latitude = 52.5 + Double(step) * 20 / 111_194.9
                        let time = Timestamp.format(Date(timeIntervalSince1970: 1_782_900_000 + Double(step) * 15))
                        try await probe.publish(
                            BusMessage(
                                topic: "stepcompass/walker-1/location",
                                text: #"{"timestamp": "\#(time)", "latitude": \#(latitude), "longitude": 13.4, "horizontalAccuracy": 4}"#,
                                qos: .atLeastOnce))
                    }
                    let pending = await photoMessages.first { $0.text.contains(#""status":"pending""#) }
                    #expect(pending?.text.contains("503") == true)
                    let found = try #require(await photoMessages.first { $0.text.contains(#""status":"found""#) })
                    #expect(found.text.contains(#""point":1"#))

                    let list = try await probe.request(
                        BusMessage(topic: "stepcompass/journal/walks", text: #"{"device": "walker-1"}"#, qos: .atLeastOnce),
                        replyTopic: "stepcompass/replies/probe-journal/walks", timeout: .seconds(10))
                    let walks = try #require((try JSONSerialization.jsonObject(with: list.payload) as? [String: Any])?["walks"] as? [[String: Any]])
                    let id = try #require(walks.first?["id"] as? String)
                    #expect(walks.first?["name"] as? String == "Canal")
                    let reply = try await probe.request(
                        BusMessage(
                            topic: "stepcompass/journal/walks", text: #"{"device": "walker-1", "walk": "\#(id)", "format": "gpx"}"#, qos: .atLeastOnce
                        ),
                        replyTopic: "stepcompass/replies/probe-journal/gpx", timeout: .seconds(10))
                    let gpx = try #require((try JSONSerialization.jsonObject(with: reply.payload) as? [String: Any])?["gpx"] as? String)
                    #expect(gpx.contains(#"<gpx version="1.1""#))
                    #expect(gpx.components(separatedBy: "<trkpt ").count == 8)
                    #expect(gpx.contains("<wpt "))
                }
                await probe.close()
            }
        } catch {
            await photos.server.shutdown()
            await database.stop()
            throw error
        }
        await photos.server.shutdown()
        await database.stop()
    }
}
