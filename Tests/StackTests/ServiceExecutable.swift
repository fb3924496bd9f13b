import BusTesting
import Foundation

/// A built StepCompass executable, found next to the test bundle (`.build/<config>/`).
struct ServiceExecutable: Sendable, CustomStringConvertible {
    let name: String
    /// The contract's service name (`stepcompass-position` → `position`).
    var service: String { String(name.dropFirst("stepcompass-".count)) }
    var description: String { name }

    static let services = [
        "stepcompass-sensors", "stepcompass-compass", "stepcompass-position", "stepcompass-markers",
        "stepcompass-dashboard", "stepcompass-bridge",
    ]
    .map(ServiceExecutable.init(name:))

    /// Every long-running service: the six above and the two with a database, each on its own temporary folder.
    static let allServices = services + ["stepcompass-activity", "stepcompass-journal"].map(ServiceExecutable.init(name:))

    static var binaryDirectory: URL {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while url.path != "/" && !url.lastPathComponent.hasSuffix("debug") && !url.lastPathComponent.hasSuffix("release") {
            url.deleteLastPathComponent()
        }
        return url
    }

    var path: String { Self.binaryDirectory.appendingPathComponent(name).path }

    /// Extra arguments a service needs to start in a test (markers: a local file as the source; the
    /// dashboard: a free HTTP port).
    var testArguments: [String] {
        switch service {
        case "markers":
            let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Config/markers/sample-markers.geojson")
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("markers-cache-\(UUID().uuidString)")
            return ["--source", sample.path, "--cache-dir", cache.path]
        case "dashboard", "bridge":
            return ["--http-port", "0"]
        case "activity":
            return ["--data-dir", Self.temporaryFolder("activity").path]
        case "journal":
            let folder = Self.temporaryFolder("journal")
            return ["--data-dir", folder.path, "--cache-dir", folder.appendingPathComponent("photos").path]
        default:
            return []
        }
    }

    /// A new folder name under the temporary directory (the service creates it).
    static func temporaryFolder(_ service: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(service)-test-\(UUID().uuidString)")
    }

    /// Starts the executable against a broker, with its own topic prefix so tests do not meet.
    func start(port: Int, prefix: String, clientID: String? = nil, arguments: [String] = []) async throws -> ChildProcess {
        try await ChildProcess(
            executable: path, arguments: testArguments + arguments,
            environment: [
                "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(port)", "TOPIC_PREFIX": prefix,
                "MQTT_CLIENT_ID": clientID ?? "\(name)-\(prefix)", "LOG_LEVEL": "info",
            ])
    }
}
