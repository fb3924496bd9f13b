import Bus
import BusTesting
import Configuration
import Foundation
import InMemoryBus
import JournalService
import Logging
import MosquittoBus
import ServiceLifecycle
import ServiceRuntime
import Synchronization
import Testing

/// A real HTTP server speaking both photo APIs (``LocalPhotoAPI``), whose answers a test can break: `script` is asked
/// first for every request (nil: the normal answer).
final class PhotoServer: Sendable {
    typealias Script = @Sendable (_ request: TestHTTPServer.Request, _ index: Int) -> TestHTTPServer.Reply?
    private final class Settings: Sendable {
        let base = Mutex("")
        let script = Mutex<Script?>(nil)
    }

    private let settings: Settings
    let server: TestHTTPServer

    private init(server: TestHTTPServer, settings: Settings) {
        self.server = server
        self.settings = settings
    }

    static func start() async throws -> PhotoServer {
        let settings = Settings()
        let server = try await TestHTTPServer.start { request, index in
            if let reply = settings.script.withLock({ $0 })?(request, index) { return reply }
            return LocalPhotoAPI(baseURL: settings.base.withLock { $0 }).reply(to: request.path)
        }
        settings.base.withLock { $0 = server.baseURL }
        return PhotoServer(server: server, settings: settings)
    }

    var baseURL: String { server.baseURL }
    var wikimediaURL: String { baseURL + "/w/api.php" }
    var flickrURL: String { baseURL + "/services/rest/" }
    var requests: [TestHTTPServer.Request] { server.requests }
    var searches: [TestHTTPServer.Request] { requests.filter { !$0.path.hasPrefix("/images/") } }

    func breaking(_ script: Script?) {
        settings.script.withLock { $0 = script }
    }
}

/// An in-memory broker, a probe client, a local photo server, and the journal built by `buildJournal` on a temporary
/// SQLite file and image cache.
final class JournalFixture: @unchecked Sendable {
    /// Where the messages go: the in-memory broker, or a real mosquitto started for the fixture.
    enum Transport: Sendable {
        case inMemory, mosquitto
    }

    let broker = InMemoryBroker()
    let mosquitto: MosquittoBrokerProcess?
    let probe: any ConnectableBus
    let folder: URL
    let photos: PhotoServer
    let journal: BusSubscription
    let photoPoints: BusSubscription
    let errors: BusSubscription
    private var group: ServiceGroup?
    private var running: Task<Void, any Error>?
    /// Seconds since 1970 of the walk's first fix (2026-07-01T10:00:00Z).
    static let start: Double = 1_782_900_000

    init(_ transport: Transport = .inMemory) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-service-\(UUID().uuidString)")
        switch transport {
        case .inMemory:
            mosquitto = nil
            let bus = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
            bus.connect()
            probe = bus
        case .mosquitto:
            let process = try await MosquittoBrokerProcess.launch()
            mosquitto = process
            let bus = try MosquittoBus(
                configuration: MosquittoConfiguration(
                    host: "127.0.0.1", port: process.port, clientID: "probe-\(UUID().uuidString.prefix(8))", cleanStart: true),
                logger: Logger(label: "test.journal.probe"))
            try await bus.connect()
            probe = bus
        }
        photos = try await PhotoServer.start()
        journal = try await probe.subscribe(to: TopicFilter("stepcompass/+/journal"))
        photoPoints = try await probe.subscribe(to: TopicFilter("stepcompass/+/journal/photo"))
        errors = try await probe.subscribe(to: TopicFilter("stepcompass/errors/journal"))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    var cacheFolder: URL { folder.appendingPathComponent("photos") }

    /// Starts the journal (again) on the same database; returns once it is online.
    func start(_ values: [AbsoluteConfigKey: ConfigValue] = [:]) async throws {
        let status = try await probe.subscribe(to: TopicFilter("stepcompass/services/journal/status"))
        var all: [AbsoluteConfigKey: ConfigValue] = [
            "data.dir": .init(.string(folder.path), isSecret: false),
            "cache.dir": .init(.string(cacheFolder.path), isSecret: false),
            "wikimedia.url": .init(.string(photos.wikimediaURL), isSecret: false),
            "flickr.url": .init(.string(photos.flickrURL), isSecret: false),
            "retry.base.seconds": 0.05,
            "request.timeout.ms": 1_000,
        ]
        for (key, value) in values { all[key] = value }
        let config = ConfigReader(provider: InMemoryProvider(values: all))
        let bus: any ConnectableBus =
            try mosquitto.map {
                try MosquittoBus(
                    configuration: MosquittoConfiguration(host: "127.0.0.1", port: $0.port, clientID: "stepcompass-journal", cleanStart: false),
                    logger: Logger(label: "test.journal.bus"))
            } ?? InMemoryBus(broker: broker, clientID: "stepcompass-journal", cleanStart: false)
        let group = try buildJournal(config: config, logger: Logger(label: "test.journal"), bus: bus)
        self.group = group
        running = Task { try await group.run() }
        let online = await status.first(within: .seconds(20)) { $0.text.contains("online") }
        try await probe.unsubscribe(status)
        try #require(online != nil, "the journal did not say online within 20 s")
    }

    /// Stops the journal (gracefully); with a real broker, the broker and the photo server too when `finally`.
    func stop(finally: Bool = true) async throws {
        await group?.triggerGracefulShutdown()
        try await running?.value
        group = nil
        if finally {
            await probe.disconnect(publishing: [], timeout: .seconds(5))
            await mosquitto?.shutdown()
            await photos.server.shutdown()
        }
    }

    func publish(_ topic: String, _ json: String, retain: Bool = false) async throws {
        try await probe.publish(BusMessage(topic: topic, text: json, qos: .atLeastOnce, retain: retain))
    }

    func permit(_ device: String, location: String = "authorized") async throws {
        try await publish("stepcompass/\(device)/permissions", #"{"motion": "authorized", "location": "\#(location)"}"#, retain: true)
    }

    func command(_ device: String, _ json: String) async throws {
        try await publish("stepcompass/\(device)/cmd/walk", json)
    }

    /// A fix `north` metres north and `east` metres east of 52.5° N 13.4° E, `seconds` after ``start``.
    func fix(_ device: String, north: Double, east: Double = 0, seconds: Double, accuracy: Double = 5, altitude: Double = 34) async throws {
        let latitude = 52.5 + north / 111_194.9
        let longitude = 13.4 + east / (111_194.9 * cos(52.5 * .pi / 180))
        let time = Timestamp.format(Date(timeIntervalSince1970: Self.start + seconds))
        try await publish(
            "stepcompass/\(device)/location",
            """
            {"timestamp": "\(time)", "latitude": \(latitude), "longitude": \(longitude), "altitude": \(altitude), "horizontalAccuracy": \(accuracy)}
            """)
    }

    /// The next `journal` message of `device` that satisfies `condition`.
    func journal(_ device: String, timeout: Duration = .seconds(60), where condition: (JournalMessage) -> Bool = { _ in true }) async
        -> JournalMessage?
    {
        let message = await journal.first(within: timeout) { message in
            guard message.topic == "stepcompass/\(device)/journal",
                let decoded = try? JSONDecoder().decode(JournalMessage.self, from: message.payload)
            else { return false }
            return condition(decoded)
        }
        return message.flatMap { try? JSONDecoder().decode(JournalMessage.self, from: $0.payload) }
    }

    /// The next `journal/photo` message of `device` that satisfies `condition`.
    func photo(_ device: String, timeout: Duration = .seconds(60), where condition: (JournalPhotoPoint) -> Bool = { _ in true }) async
        -> JournalPhotoPoint?
    {
        let message = await photoPoints.first(within: timeout) { message in
            guard message.topic == "stepcompass/\(device)/journal/photo",
                let decoded = try? JSONDecoder().decode(JournalPhotoPoint.self, from: message.payload)
            else { return false }
            return condition(decoded)
        }
        return message.flatMap { try? JSONDecoder().decode(JournalPhotoPoint.self, from: $0.payload) }
    }

    /// Sends a `journal/walks` request and returns the reply's JSON object.
    func request(_ json: String) async throws -> [String: Any] {
        let reply = "test/replies/\(UUID().uuidString)"
        let subscription = try await probe.subscribe(to: TopicFilter(reply))
        let body = json.dropLast() + #", "replyTo": "\#(reply)"}"#
        try await publish("stepcompass/journal/walks", String(body))
        let message = try #require(await subscription.next(timeout: .seconds(10)), "no reply to \(json)")
        try await probe.unsubscribe(subscription)
        return try #require(try JSONSerialization.jsonObject(with: message.payload) as? [String: Any])
    }
}
