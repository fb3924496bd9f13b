import BusTesting
import Foundation

/// The built `stepcompass` binary, found next to the test bundle (`.build/<config>/`), run as a user
/// would run it.
struct StepCompassExecutable {
    static var binaryDirectory: URL {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while url.path != "/" && !url.lastPathComponent.hasSuffix("debug") && !url.lastPathComponent.hasSuffix("release") {
            url.deleteLastPathComponent()
        }
        return url
    }

    static var path: String { binaryDirectory.appendingPathComponent("stepcompass").path }

    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// What a run printed (standard output and error together) and its exit status.
    struct Run {
        let output: String
        let status: Int32?
    }

    /// Runs `stepcompass` with `arguments` against 127.0.0.1:`port` under `prefix`, and waits for it.
    static func run(_ arguments: [String], port: Int, prefix: String, timeout: Duration = .seconds(10)) async throws -> Run {
        let process = try await ChildProcess(
            executable: path, arguments: arguments,
            environment: ["MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(port)", "TOPIC_PREFIX": prefix, "LOG_LEVEL": "error"])
        let status = await process.waitForExit(timeout: timeout)
        if status == nil { process.signal(SIGKILL) }
        defer { try? FileManager.default.removeItem(at: process.outputFile) }
        return Run(output: process.output, status: status)
    }
}
