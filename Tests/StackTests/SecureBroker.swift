import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import Testing

/// A mosquitto with the compose broker's configuration: `Config/mosquitto/secure.conf` with this run's ports and paths,
/// its `include_dir` holding `stepcompass.conf`, and the users, passwords, ACL and the bridge's push token made by
/// `compose/broker-entrypoint.sh` exactly as the compose broker's entrypoint makes them (random passwords, read back
/// from its secrets folder as each service's container would read its own).
///
/// For the broker ACL suite and the stack contract suite.
struct SecureBroker {
    static let users = ["sensors", "compass", "position", "markers", "dashboard", "bridge", "activity", "journal", "device", "viewer"]

    let broker: MosquittoBrokerProcess
    let webSocketPort: Int
    /// Each user's password, as the entrypoint generated it.
    let passwords: [String: String]
    /// The bridge's HTTP push token, as the entrypoint generated it.
    let bridgeToken: String
    let logger: Logger = {
        var logger = Logger(label: "test.secure-broker")
        logger.logLevel = .error  // refused publishes are expected in the ACL suite
        return logger
    }()

    /// The plain MQTT listener's port (127.0.0.1).
    var port: Int { broker.port }

    /// The password of `user` (empty for a user the entrypoint does not know).
    func password(_ user: String) -> String { passwords[user] ?? "" }

    static var configFolder: URL { Repository.root.appendingPathComponent("Config/mosquitto") }

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `body` with such a broker, stopped afterwards.
    static func with<T>(_ body: (SecureBroker) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-secure-broker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("conf.d"), withIntermediateDirectories: true)
        defer { removeFolder(folder) }
        try FileManager.default.copyItem(
            at: configFolder.appendingPathComponent("stepcompass.conf"), to: folder.appendingPathComponent("conf.d/stepcompass.conf"))
        let (passwords, bridgeToken) = try await makeCredentials(in: folder)

        let webSocketPort = try MosquittoBrokerProcess.freePort()
        let secure = try String(contentsOf: configFolder.appendingPathComponent("secure.conf"), encoding: .utf8)
        let auth = folder.appendingPathComponent("auth").path
        // The broker helper opens the plain MQTT listener (on its own free port) and the persistence folder itself.
        let configuration = secure.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            switch line {
            case "listener 1883",
                _ where line.hasPrefix("persistence_location "):
                return nil
            case "listener 9001": return "listener \(webSocketPort) 127.0.0.1"
            case _ where line.hasPrefix("password_file ") || line.hasPrefix("acl_file "):
                return line.replacingOccurrences(of: "/mosquitto/auth", with: auth)
            case _ where line.hasPrefix("include_dir "): return "include_dir \(folder.appendingPathComponent("conf.d").path)"
            default: return String(line)
            }
        }.joined(separator: "\n")
        #expect(
            configuration.contains("listener \(webSocketPort) 127.0.0.1\nprotocol websockets"),
            "secure.conf lacks the WebSockets listener (listener 9001, protocol websockets)")
        #expect(configuration.contains("password_file \(auth)/passwd"), "secure.conf does not read the entrypoint's password file")
        #expect(configuration.contains("acl_file \(auth)/acl"), "secure.conf does not read the entrypoint's ACL")
        let tuning = try String(contentsOf: configFolder.appendingPathComponent("stepcompass.conf"), encoding: .utf8)
        for option in ["set_tcp_nodelay", "max_queued_messages", "persistence true"] {
            #expect(tuning.split(separator: "\n").contains { $0.hasPrefix(option) }, "stepcompass.conf lacks \(option)")
        }
        return try await withBroker(configuration: configuration) { broker in
            // The WebSockets listener is opened right after the plain one: wait until it accepts connections too
            // (at least 500 looks: a starved task must not give up on the clock alone).
            var looks = 0
            let deadline = ContinuousClock.now + .seconds(10)
            while !MosquittoBrokerProcess.canConnect(port: webSocketPort), ContinuousClock.now < deadline || looks < 500 {
                looks += 1
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(MosquittoBrokerProcess.canConnect(port: webSocketPort), "the WebSockets listener did not open: \(broker.log)")
            return try await body(
                SecureBroker(broker: broker, webSocketPort: webSocketPort, passwords: passwords, bridgeToken: bridgeToken))
        }
    }

    /// Runs `compose/broker-entrypoint.sh` (with `true` as the command it would exec) on `folder`: the password
    /// file and the ACL in `auth/`, every password and the push token in `secrets/`. Nothing comes from the
    /// environment: every password is generated.
    private static func makeCredentials(in folder: URL) async throws -> (passwords: [String: String], bridgeToken: String) {
        guard ["/usr/bin/mosquitto_passwd", "/usr/local/bin/mosquitto_passwd"].contains(where: FileManager.default.isExecutableFile) else {
            throw Missing(description: "mosquitto_passwd is not installed (apt-get install mosquitto)")
        }
        let secrets = folder.appendingPathComponent("secrets")
        var environment = [
            "STEPCOMPASS_APP_UID": "\(getuid())", "MOSQUITTO_AUTH_DIR": folder.appendingPathComponent("auth").path,
            "STEPCOMPASS_SECRETS_DIR": secrets.path, "MOSQUITTO_ACL_SOURCE": configFolder.appendingPathComponent("acl").path,
            "MOSQUITTO_DATA_DIR": folder.appendingPathComponent("data").path, "STEPCOMPASS_BRIDGE_TOKEN": "",
            "STEPCOMPASS_POSTGRES_PASSWORD": "",
        ]
        for user in users { environment["STEPCOMPASS_\(user.uppercased())_PASSWORD"] = "" }
        let entrypoint = try await ChildProcess(
            executable: "/bin/sh", arguments: [Repository.root.appendingPathComponent("compose/broker-entrypoint.sh").path, "true"],
            environment: environment, outputFile: folder.appendingPathComponent("entrypoint.out"))
        let status = await entrypoint.waitForExit(timeout: .seconds(60))
        try #require(status == 0, "compose/broker-entrypoint.sh failed (\(String(describing: status))): \(entrypoint.output)")
        func secret(_ path: String) throws -> String {
            let value = try String(contentsOf: secrets.appendingPathComponent(path), encoding: .utf8)
            try #require(value.count >= 32 && value.allSatisfy(\.isHexDigit), "the entrypoint's \(path) is not a generated secret")
            return value
        }
        var passwords: [String: String] = [:]
        for user in users {
            passwords[user] = try secret(["device", "viewer"].contains(user) ? "clients/\(user)" : "\(user)/password")
        }
        #expect(Set(passwords.values).count == users.count, "the entrypoint gave two users the same password")
        return (passwords, try secret("bridge/token"))
    }

    /// Removes `folder`, whose secrets folders the entrypoint left read-only (as compose mounts them).
    static func removeFolder(_ folder: URL) {
        if let contents = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey]) {
            for case let url as URL in contents where (try? url.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true {
                try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
            }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// A client of `user` with its password (or the given one), connected.
    func client(
        _ user: String?, password: String? = nil, protocolVersion: MosquittoConfiguration.ProtocolVersion = .v5,
        timeout: Duration = .seconds(10)
    ) async throws -> MosquittoBus {
        let configuration = MosquittoConfiguration(
            host: "127.0.0.1", port: broker.port, clientID: "secure-\(user ?? "anonymous")-\(UUID().uuidString.prefix(8))",
            username: user, password: password ?? user.map(self.password), protocolVersion: protocolVersion, cleanStart: true,
            reconnectDelay: .milliseconds(100), reconnectDelayMax: .milliseconds(500))
        let bus = try MosquittoBus(configuration: configuration, logger: logger)
        do {
            try await bus.connect(timeout: timeout)
        } catch let error as BusError where error.code == .timeout && !error.message.contains("refused") {
            // No CONNACK (no answer, or the connection lost before it): say what the broker was doing.
            await bus.disconnect()
            throw BusError(.timeout, "\(error.message)\n\(broker.diagnosis())")
        } catch {
            await bus.disconnect()
            throw error
        }
        return bus
    }
}
