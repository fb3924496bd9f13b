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
    /// dashboard: a free HTTP port), its data and caches in new folders under the temporary directory.
    var testArguments: [String] { testArguments(in: nil) }

    /// Extra arguments a service needs to start in a test: markers the repository's sample markers as the source, the
    /// dashboard and the bridge `httpPort` (0: any free one), and the data and caches of the markers, the activity
    /// service and the journal in `folder` (`cache`, `activity-data`, `journal-data` and ``journalPhotos(in:)``), or
    /// with `folder` nil in new folders under the temporary directory.
    func testArguments(in folder: URL?, httpPort: Int = 0) -> [String] {
        switch service {
        case "markers":
            let cache =
                folder?.appendingPathComponent("cache")
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("markers-cache-\(UUID().uuidString)")
            return ["--source", Repository.root.appendingPathComponent("Config/markers/sample-markers.geojson").path, "--cache-dir", cache.path]
        case "dashboard", "bridge":
            return ["--http-port", "\(httpPort)"]
        case "activity":
            return ["--data-dir", (folder?.appendingPathComponent("activity-data") ?? Self.temporaryFolder("activity")).path]
        case "journal":
            if let folder {
                return ["--data-dir", folder.appendingPathComponent("journal-data").path, "--cache-dir", Self.journalPhotos(in: folder).path]
            }
            let folder = Self.temporaryFolder("journal")
            return ["--data-dir", folder.path, "--cache-dir", folder.appendingPathComponent("photos").path]
        default:
            return []
        }
    }

    /// The journal's photo cache in the `folder` of ``testArguments(in:httpPort:)``.
    static func journalPhotos(in folder: URL) -> URL { folder.appendingPathComponent("journal-photos") }

    /// A new folder name under the temporary directory (the service creates it).
    static func temporaryFolder(_ service: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(service)-test-\(UUID().uuidString)")
    }

    /// Starts the executable against a broker, with its own topic prefix so tests do not meet: ``testArguments(in:httpPort:)``
    /// for `folder` and `httpPort`, then `arguments`; as `username` with `password` when given; `environment` added to
    /// (and overriding) the MQTT settings and `LOG_LEVEL=info`; its output in `outputFile` (nil: a temporary file).
    func start(
        port: Int, prefix: String, clientID: String? = nil, arguments: [String] = [], folder: URL? = nil, httpPort: Int = 0,
        username: String? = nil, password: String? = nil, environment: [String: String] = [:], outputFile: URL? = nil
    ) async throws -> ChildProcess {
        var variables = [
            "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(port)", "TOPIC_PREFIX": prefix, "MQTT_CLIENT_ID": clientID ?? "\(name)-\(prefix)",
            "LOG_LEVEL": "info",
        ]
        if let username { variables["MQTT_USERNAME"] = username }
        if let password { variables["MQTT_PASSWORD"] = password }
        variables.merge(environment) { $1 }
        return try await ChildProcess(
            executable: path, arguments: testArguments(in: folder, httpPort: httpPort) + arguments, environment: variables,
            outputFile: outputFile)
    }
}
