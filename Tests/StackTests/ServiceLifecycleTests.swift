import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import Testing

/// Every executable, run as a process against a real broker: help, online, clean stop, crash, broker restart.
@Suite("Service processes", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct ServiceLifecycleTests {
    static func watcher(_ port: Int, _ id: String) async throws -> MosquittoBus {
        let configuration = MosquittoConfiguration(
            host: "127.0.0.1", port: port, clientID: id, cleanStart: true,
            reconnectDelay: .milliseconds(50), reconnectDelayMax: .milliseconds(200))
        let bus = try MosquittoBus(configuration: configuration, logger: Logger(label: "test.\(id)"))
        try await bus.connect(timeout: .seconds(10))
        return bus
    }

    /// The next status message's state, skipping repeats of `skipping`.
    static func nextState(_ subscription: BusSubscription, timeout: Duration = .seconds(60)) async -> String? {
        guard let message = await subscription.next(timeout: timeout),
            let object = try? JSONSerialization.jsonObject(with: message.payload) as? [String: Any]
        else { return nil }
        return object["state"] as? String
    }

    @Test("--help explains the options", arguments: ServiceExecutable.allServices)
    func help(_ executable: ServiceExecutable) async throws {
        let process = try await ChildProcess(executable: executable.path, arguments: ["--help"])
        #expect(await process.waitForExit() == 0)
        #expect(process.output.contains("--mqtt-host"))
        #expect(process.output.contains("MQTT_HOST"))
        #expect(process.output.contains("--topic-prefix"))
    }

    @Test("told to stop while the broker is unreachable, it exits 0 within 5 s", arguments: ServiceExecutable.allServices)
    func stopWithoutBroker(_ executable: ServiceExecutable) async throws {
        // Nothing listens on the port: the service keeps retrying the connection until it is told to stop.
        let port = try MosquittoBrokerProcess.freePort()
        let process = try await executable.start(port: port, prefix: "nobroker")
        let retrying = ContinuousClock.now + .seconds(20)
        while !process.output.contains("cannot reach the MQTT broker"), process.isRunning, ContinuousClock.now < retrying {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(process.output.contains("cannot reach the MQTT broker"), "\(process.output)")
        let stopping = ContinuousClock.now
        process.signal(SIGTERM)
        let status = await process.waitForExit(timeout: .seconds(5))
        #expect(status == 0, "exit status \(String(describing: status)) after \(ContinuousClock.now - stopping): \(process.output)")
        if status == nil { process.signal(SIGKILL) }
    }

    @Test(
        "told to stop while its PostgreSQL database is unreachable, it exits 0 within 5 s",
        arguments: ["stepcompass-activity", "stepcompass-journal"].map(ServiceExecutable.init(name:)))
    func stopWithoutDatabase(_ executable: ServiceExecutable) async throws {
        try await withBroker { broker in
            // Nothing listens on the database's port: the service keeps trying to open it until it is told to stop.
            let databasePort = try MosquittoBrokerProcess.freePort()
            let process = try await executable.start(
                port: broker.port, prefix: "nodb",
                arguments: ["--database-url", "postgres://stepcompass:secret@127.0.0.1:\(databasePort)/stepcompass"])
            // Running (its signal handlers are in place once it is connected to the broker), and opening the database.
            func running() -> Bool { process.output.contains("in PostgreSQL") && process.output.contains("connected to the MQTT broker") }
            let opening = ContinuousClock.now + .seconds(30)
            while !running(), process.isRunning, ContinuousClock.now < opening {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(running(), "\(process.output)")
            let stopping = ContinuousClock.now
            process.signal(SIGTERM)
            let status = await process.waitForExit(timeout: .seconds(5))
            #expect(status == 0, "exit status \(String(describing: status)) after \(ContinuousClock.now - stopping): \(process.output)")
            #expect(!process.output.contains("secret"), "the database password was logged")
            if status == nil { process.signal(SIGKILL) }
        }
    }

    @Test(
        "online, offline on SIGTERM with exit 0, last will on SIGKILL, back online after a broker restart",
        arguments: ServiceExecutable.allServices)
    func lifecycle(_ executable: ServiceExecutable) async throws {
        try await withBroker { broker in
            let prefix = "it\(UUID().uuidString.prefix(6))"
            let watcher = try await Self.watcher(broker.port, "watch-\(prefix)")
            let status = try await watcher.subscribe(to: try TopicFilter("\(prefix)/services/\(executable.service)/status"))

            let first = try await executable.start(port: broker.port, prefix: prefix)
            #expect(await Self.nextState(status) == "online", "\(executable) did not come online: \(first.output)")
            first.signal(SIGTERM)
            #expect(await first.waitForExit(timeout: .seconds(15)) == 0, "\(executable) did not exit 0: \(first.output)")
            #expect(await Self.nextState(status) == "offline")

            let second = try await executable.start(port: broker.port, prefix: prefix)
            #expect(await Self.nextState(status) == "online")
            second.signal(SIGKILL)
            #expect(await second.waitForExit() == 128 + SIGKILL)
            #expect(await Self.nextState(status) == "offline", "the last will says offline after SIGKILL")

            let third = try await executable.start(port: broker.port, prefix: prefix)
            #expect(await Self.nextState(status) == "online")
            try await broker.restartAndWait()
            // After the restart the watcher resubscribes and sees the retained status; the service
            // reconnects by itself and republishes online.
            var sawOnlineAgain = false
            for _ in 0..<4 where !sawOnlineAgain {
                sawOnlineAgain = await Self.nextState(status, timeout: .seconds(10)) == "online"
            }
            #expect(sawOnlineAgain, "\(executable) came back online after the broker restarted: \(third.output)")
            #expect(third.isRunning)
            third.signal(SIGTERM)
            #expect(await third.waitForExit(timeout: .seconds(15)) == 0)
            await watcher.disconnect()
        }
    }

    @Test("at debug level the bridge's log names its services by type, never with their tokens")
    func debugLogKeepsSecrets() async throws {
        try await withBroker { broker in
            let prefix = "ds\(UUID().uuidString.prefix(6))"
            let watcher = try await Self.watcher(broker.port, "watch-\(prefix)")
            let status = try await watcher.subscribe(to: try TopicFilter("\(prefix)/services/bridge/status"))
            let secret = "debug-log-secret-\(UUID().uuidString.prefix(8))"
            let bridge = ServiceExecutable(name: "stepcompass-bridge")
            let process = try await bridge.start(
                port: broker.port, prefix: prefix, arguments: ["--http-host", "127.0.0.1"],
                environment: ["LOG_LEVEL": "debug", "TOKEN": secret, "DEVICE_TOKENS": "phone-1=\(secret)-device"])
            #expect(await Self.nextState(status) == "online", "the bridge did not come online: \(process.output)")
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: .seconds(15)) == 0)
            // The services are listed at debug level when the group starts; the line is there, the token is not.
            #expect(process.output.contains("BridgeService"), "no debug line names the bridge's service: \(process.output.prefix(2_000))")
            #expect(!process.output.contains(secret), "a token reached the log")
            await watcher.disconnect()
        }
    }
}
