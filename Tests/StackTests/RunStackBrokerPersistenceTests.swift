import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import Testing

/// The broker of `make run` keeps retained messages and persistent sessions (a subscription with the QoS 1 messages
/// queued for it while its client was away) across a restart of the stack: mosquitto runs with exactly the
/// configuration `scripts/run-stack.sh` writes (`--broker-config`), is stopped with SIGTERM as Ctrl-C stops the stack,
/// and is started again on the same run folder. (The compose broker's persistence is checked by
/// `scripts/check-compose.sh` with the compose configuration.)
@Suite("make run's broker keeps its persistence across a restart", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct RunStackBrokerPersistenceTests {
    /// The broker configuration run-stack.sh writes for these ports and run folder.
    static func brokerConfiguration(mqttPort: Int, webSocketPort: Int, runFolder: URL) async throws -> String {
        let script = try await ChildProcess(
            executable: "/bin/bash", arguments: [Repository.root.appendingPathComponent("scripts/run-stack.sh").path, "--broker-config"],
            environment: ["MQTT_PORT": "\(mqttPort)", "WS_PORT": "\(webSocketPort)", "RUN_DIR": runFolder.path],
            outputFile: runFolder.appendingPathComponent("broker-config.out"))
        let status = await script.waitForExit(timeout: .seconds(60))
        try #require(status == 0, "scripts/run-stack.sh --broker-config failed: \(script.output)")
        return script.output
    }

    /// Starts mosquitto with `configuration` and waits until it accepts connections on `port` (as
    /// `MosquittoBrokerProcess.startAndWait` does for the brokers it configures itself).
    static func startBroker(_ configuration: URL, port: Int, output: URL) async throws -> ChildProcess {
        let executable = try #require(MosquittoBrokerProcess.executable, "mosquitto is not installed (make test installs it)")
        let broker = try await ChildProcess(executable: executable, arguments: ["-c", configuration.path], outputFile: output)
        var looks = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while !MosquittoBrokerProcess.canConnect(port: port), broker.isRunning, ContinuousClock.now < deadline || looks < 500 {
            looks += 1
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(MosquittoBrokerProcess.canConnect(port: port), "mosquitto did not accept connections: \(broker.output)")
        return broker
    }

    static func client(_ port: Int, _ id: String, cleanStart: Bool) async throws -> MosquittoBus {
        let configuration = MosquittoConfiguration(
            host: "127.0.0.1", port: port, clientID: id, cleanStart: cleanStart,
            reconnectDelay: .milliseconds(50), reconnectDelayMax: .milliseconds(200))
        let bus = try MosquittoBus(configuration: configuration, logger: Logger(label: "test.\(id)"))
        try await bus.connect(timeout: .seconds(30))
        return bus
    }

    @Test("a retained message and a persistent session's queued QoS 1 message survive a SIGTERM restart")
    func persistence() async throws {
        let runFolder = FileManager.default.temporaryDirectory.appendingPathComponent("run-stack-broker-\(UUID().uuidString)")
        for folder in ["mosquitto", "logs"] {
            try FileManager.default.createDirectory(at: runFolder.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(at: runFolder) }
        let port = try MosquittoBrokerProcess.freePort()
        let webSocketPort = try MosquittoBrokerProcess.freePort()
        let text = try await Self.brokerConfiguration(mqttPort: port, webSocketPort: webSocketPort, runFolder: runFolder)
        #expect(text.contains("persistence true\npersistence_location \(runFolder.path)/mosquitto/"))
        let configuration = runFolder.appendingPathComponent("mosquitto/mosquitto.conf")
        try text.write(to: configuration, atomically: true, encoding: .utf8)
        let output = runFolder.appendingPathComponent("mosquitto.out")

        var broker = try await Self.startBroker(configuration, port: port, output: output)
        defer { broker.signal(SIGKILL) }  // whichever broker is running when the test ends, however it ends
        // A subscriber with a persistent session goes away; meanwhile a retained and a plain QoS 1 message are published.
        let away = try await Self.client(port, "persistence-away", cleanStart: false)
        _ = try await away.subscribe(to: TopicFilter("persistence/queued"), qos: .atLeastOnce)
        await away.disconnect()
        let publisher = try await Self.client(port, "persistence-publisher", cleanStart: true)
        try await publisher.publish(BusMessage(topic: "persistence/retained", text: "kept", qos: .atLeastOnce, retain: true))
        try await publisher.publish(BusMessage(topic: "persistence/queued", text: "queued while away", qos: .atLeastOnce))
        try await publisher.flush()
        await publisher.disconnect()

        broker.signal(SIGTERM)
        #expect(await broker.waitForExit(timeout: .seconds(30)) == 0, "mosquitto did not stop cleanly: \(broker.output)")
        let database = runFolder.appendingPathComponent("mosquitto/mosquitto.db")
        #expect(FileManager.default.fileExists(atPath: database.path), "no persistence file in the run folder")
        broker = try await Self.startBroker(configuration, port: port, output: output)

        let watcher = try await Self.client(port, "persistence-watcher", cleanStart: true)
        let retained = try await watcher.subscribe(to: TopicFilter("persistence/retained"), qos: .atLeastOnce)
        #expect(await retained.next(timeout: .seconds(30))?.text == "kept", "the retained message did not survive the restart")
        let back = try await Self.client(port, "persistence-away", cleanStart: false)
        let queued = try await back.subscribe(to: TopicFilter("persistence/queued"), qos: .atLeastOnce)
        #expect(await queued.next(timeout: .seconds(30))?.text == "queued while away", "the queued message did not survive the restart")
        await back.disconnect()
        await watcher.disconnect()
        broker.signal(SIGTERM)
        _ = await broker.waitForExit(timeout: .seconds(30))
    }
}
