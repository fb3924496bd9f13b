import BridgeService
import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import ServiceLifecycle
import ServiceRuntime
import StepCompassTesting
import Testing

/// The bridge on a real mosquitto: Sensor Logger's MQTT push over the broker's WebSockets listener (as the app
/// connects), its HTTP push, and gpsd's fixes from Debian's real gpsd fed by gpsfake.
@Suite("Phone bridge on a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct BridgeBrokerTests {
    private static let logger = Logger(label: "test.bridge", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs a bridge built by `buildBridge` over a real MQTT connection for the duration of `body`.
    private func withBridge<T: Sendable>(
        port: Int, configuration: BridgeConfiguration, _ body: @Sendable (Int) async throws -> T
    ) async throws -> T {
        let statuses = ServiceStatus.messages(service: "bridge", topics: Topics(), startedAt: Date())
        let bus = try MosquittoBus(
            configuration: MosquittoConfiguration(
                host: "127.0.0.1", port: port, clientID: "stepcompass-bridge-\(UUID().uuidString.prefix(8))",
                will: statuses.offline),
            logger: Self.logger)
        let runtime = BusRuntime(service: "bridge", topics: Topics(), logger: Self.logger, bus: bus)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = try buildBridge(configuration: configuration, runtime: runtime) { continuation.yield($0) }
        return try await withRunningGroup(group) {
            var iterator = ports.makeAsyncIterator()
            guard let httpPort = await iterator.next() else { throw BridgeHarness.Failure(description: "the bridge did not start") }
            return try await body(httpPort)
        }
    }

    @Test("Sensor Logger's MQTT push over WebSockets becomes the device's imu, location and steps")
    func webSocketPush() async throws {
        let wsPort = try MosquittoBrokerProcess.freePort()
        try await withBroker(configuration: "listener \(wsPort) 127.0.0.1\nprotocol websockets\n") { broker in
            let probe = try await MosquittoHarness(port: broker.port).makeClient(id: "probe-ws", cleanStart: true, will: nil)
            let feed = try await probe.subscribe(to: TopicFilter("stepcompass/#"), qos: .atLeastOnce)
            try await withBridge(port: broker.port, configuration: BridgeConfiguration(httpPort: 0, reorderDelay: 0.05)) { _ async throws in
                let phone = try WebSocketMQTTPublisher(port: wsPort, clientID: "sensor-logger-app")
                defer { phone.disconnect() }
                try phone.publish(topic: "sensor-logger", payload: Array(SensorLoggerBodies.android(device: "Pixel 8 Pro").utf8))
                let messages = await collectJSON(feed) { found in
                    found.filter { $0.topic == "stepcompass/Pixel-8-Pro/imu" }.count >= 20
                        && found.contains { $0.topic == "stepcompass/Pixel-8-Pro/steps" }
                }
                #expect(messages.filter { $0.topic == "stepcompass/Pixel-8-Pro/imu" }.count == 20)
                #expect(messages.contains { $0.topic == "stepcompass/Pixel-8-Pro/location" })
                let steps = try #require(messages.first { $0.topic == "stepcompass/Pixel-8-Pro/steps" }?.json)
                #expect(steps["source"] as? String == "pedometer")
                // A broken body over MQTT is reported, not fatal.
                try phone.publish(topic: "sensor-logger", payload: Array("{broken".utf8))
                let errors = await collectJSON(feed) { found in found.contains { $0.topic == "stepcompass/errors/bridge" } }
                #expect(errors.contains { $0.topic == "stepcompass/errors/bridge" })
            }
        }
    }

    @Test("Sensor Logger's HTTP push reaches the broker, and the bridge's status is online then offline")
    func httpPush() async throws {
        try await withBroker { broker in
            let probe = try await MosquittoHarness(port: broker.port).makeClient(id: "probe-http", cleanStart: true, will: nil)
            let feed = try await probe.subscribe(to: TopicFilter("stepcompass/#"), qos: .atLeastOnce)
            try await withBridge(port: broker.port, configuration: BridgeConfiguration(httpPort: 0, token: "t0k3n", reorderDelay: 0.05)) {
                httpPort async throws in
                let bridge = BridgeHarness(port: httpPort)
                #expect(try await bridge.push(SensorLoggerBodies.android(), query: "device=http-phone").status == 401)
                #expect(try await bridge.push(SensorLoggerBodies.android(), query: "device=http-phone&token=t0k3n").status == 200)
                let messages = await collectJSON(feed) { found in
                    found.filter { $0.topic == "stepcompass/http-phone/imu" }.count >= 20
                }
                #expect(messages.filter { $0.topic == "stepcompass/http-phone/imu" }.count == 20)
                #expect(messages.contains { $0.topic == "stepcompass/services/bridge/status" && $0.json["state"] as? String == "online" })
            }
            let after = await collectJSON(feed) { found in
                found.contains { $0.topic == "stepcompass/services/bridge/status" && $0.json["state"] as? String == "offline" }
            }
            #expect(after.contains { $0.json["state"] as? String == "offline" })
        }
    }

    /// An NMEA log of a short walk in Munich: GGA and RMC at 1 Hz, then two epochs without a fix (gpsd reports only what it reads after the client's WATCH, so the first
    /// few may be missed).
    private static func nmeaLog() -> String {
        func checksum(_ sentence: String) -> String {
            String(format: "%02X", sentence.utf8.reduce(UInt8(0)) { $0 ^ $1 })
        }
        var lines: [String] = []
        for second in 0..<12 {
            let time = String(format: "1000%02d.00", second)
            let latitude = String(format: "4808.%04d", 2244 + second * 7)  // 48°08.2244' N, moving north
            let gga = "GPGGA,\(time),\(latitude),N,01134.5300,E,1,08,0.9,519.0,M,47.0,M,,"
            let rmc = "GPRMC,\(time),A,\(latitude),N,01134.5300,E,2.7,0.0,221126,,,A"
            lines.append("$\(gga)*\(checksum(gga))")
            lines.append("$\(rmc)*\(checksum(rmc))")
        }
        for second in 12..<14 {
            let time = String(format: "1000%02d.00", second)
            let gga = "GPGGA,\(time),,,,,0,00,99.9,,M,,M,,"
            let rmc = "GPRMC,\(time),V,,,,,,,221126,,,N"
            lines.append("$\(gga)*\(checksum(gga))")
            lines.append("$\(rmc)*\(checksum(rmc))")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private static var gpsfake: String? {
        ["/usr/bin/gpsfake", "/usr/local/bin/gpsfake"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test(
        "gpsd's TPV fixes (Debian's gpsd, fed by gpsfake) become the device's location; no fix publishes nothing",
        .enabled(if: ProcessInfo.processInfo.environment["CI"] == "true" || gpsfake != nil))
    func gpsd() async throws {
        let gpsfake = try #require(Self.gpsfake, "gpsfake is missing: make test installs gpsd and gpsd-clients")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpsfake-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("walk.nmea")
        try Self.nmeaLog().write(to: log, atomically: true, encoding: .ascii)
        let gpsdPort = try MosquittoBrokerProcess.freePort()
        try await withBroker { broker in
            let probe = try await MosquittoHarness(port: broker.port).makeClient(id: "probe-gps", cleanStart: true, will: nil)
            let feed = try await probe.subscribe(to: TopicFilter("stepcompass/gps/location"), qos: .atLeastOnce)
            let configuration = BridgeConfiguration(httpPort: -1, gpsd: "127.0.0.1:\(gpsdPort)", gpsdDevice: "gps")
            try await withBridgeWithoutHTTP(port: broker.port, configuration: configuration) {
                // The bridge is already trying gpsd, with a backoff that reaches 10 s: gpsfake starts its own gpsd on the
                // port and feeds the log round and round, a sentence every 0.2 s (-c 0.2). gpsd reads the device only
                // while a client watches, so the sentences fed before the bridge's next try are lost; a log fed once
                // (-1) could end before it (a failure seen on a loaded machine), a cycled one cannot.
                let fake = try await ChildProcess(
                    executable: gpsfake, arguments: ["-q", "-c", "0.2", "-P", "\(gpsdPort)", log.path],
                    environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"],
                    outputFile: folder.appendingPathComponent("gpsfake.out"))
                // gpsfake stops its gpsd only on SIGINT (its cleanup does not run on SIGTERM).
                defer { fake.signal(SIGINT) }
                let fixes = await collectJSON(feed, timeout: .seconds(90)) { $0.count >= 4 }
                #expect(fixes.count >= 4, "gpsfake: \(fake.output)")
                // Whichever epoch the bridge saw first: the log's walk north from 48°08.2244' along 11°34.53' E.
                for fix in fixes {
                    let latitude = try #require(fix.json["latitude"] as? Double)
                    #expect(latitude > 48 + 8.2244 / 60 - 0.001 && latitude < 48 + 8.3014 / 60 + 0.001)
                    #expect(abs((fix.json["longitude"] as? Double ?? 0) - (11 + 34.53 / 60)) < 0.001)
                }
                // The epochs without a fix (10:00:12 and 10:00:13) publish nothing, over a whole cycle of the log.
                let rest = await collectJSON(feed, timeout: .seconds(8)) { _ in false }
                let times = (fixes + rest).compactMap { $0.json["timestamp"] as? String }
                #expect(times.count == fixes.count + rest.count)
                #expect(!times.contains { $0.contains("T10:00:12") || $0.contains("T10:00:13") }, "\(times)")
                fake.signal(SIGINT)
                #expect(await fake.waitForExit(timeout: .seconds(30)) != nil, "gpsfake did not stop on SIGINT")
            }
        }
    }

    /// A bridge with no HTTP push (so no port to wait for): waits for its retained `online` status instead.
    private func withBridgeWithoutHTTP(port: Int, configuration: BridgeConfiguration, _ body: @Sendable () async throws -> Void) async throws {
        let statuses = ServiceStatus.messages(service: "bridge", topics: Topics(), startedAt: Date())
        let bus = try MosquittoBus(
            configuration: MosquittoConfiguration(host: "127.0.0.1", port: port, clientID: "stepcompass-bridge-gps", will: statuses.offline),
            logger: Self.logger)
        let watcher = try await MosquittoHarness(port: port).makeClient(id: "status-watch", cleanStart: true, will: nil)
        let status = try await watcher.subscribe(to: TopicFilter("stepcompass/services/bridge/status"), qos: .atLeastOnce)
        let group = try buildBridge(
            configuration: configuration, runtime: BusRuntime(service: "bridge", topics: Topics(), logger: Self.logger, bus: bus))
        try await withRunningGroup(group) {
            _ = await collectJSON(status) { found in found.contains { $0.json["state"] as? String == "online" } }
            try await body()
        }
    }
}
