import ArgumentParser
import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus

/// A real service executable (`stepcompass-bridge` unless told otherwise) run against the load tools' private broker,
/// with a probe client that saw it come online (`detector-load`, `bridge-load`, `journal-load`, `device-flood`).
struct BridgeUnderTest {
    let process: ChildProcess
    let probe: MosquittoBus

    /// `executable` next to this executable, unless `path` names one.
    static func executablePath(_ path: String?, executable name: String = "stepcompass-bridge") -> String {
        if let path { return path }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent(name)
            .path
    }

    /// Fails unless `path` is an executable: before a tool starts its broker, and again when the service starts.
    static func requireExecutable(_ path: String, service: String) throws {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError("no stepcompass-\(service) at \(path): build it or pass its path (--executable)")
        }
    }

    /// Starts the bridge with `arguments` against the broker on `port` and waits (up to 30 s) for its retained
    /// `online` status.
    static func start(
        path: String, arguments: [String], port: Int, prefix: String, label: String, service: String = "bridge",
        environment: [String: String] = [:]
    ) async throws -> BridgeUnderTest {
        try requireExecutable(path, service: service)
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let probe = try MosquittoBus(
            configuration: MosquittoConfiguration(host: "127.0.0.1", port: port, clientID: "\(label)-probe", cleanStart: true),
            logger: logger)
        try await probe.connect()
        let status = try await probe.subscribe(to: try TopicFilter("\(prefix)/services/\(service)/status"), qos: .atLeastOnce)
        let process = try await ChildProcess(
            executable: path, arguments: arguments,
            environment: [
                "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(port)", "MQTT_CLIENT_ID": "\(label)-\(service)",
                "TOPIC_PREFIX": prefix, "LOG_LEVEL": "warning",
            ].merging(environment) { _, given in given })
        let found = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await message in status where String(decoding: message.payload, as: UTF8.self).contains("\"online\"") {
                    return true
                }
                return false
            }
            group.addTask {
                // Give up after 30 s, or as soon as the bridge exits (a bad option).
                let deadline = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < deadline, process.isRunning, !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(100))
                }
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard found, process.isRunning else {
            process.signal(SIGKILL)
            await probe.disconnect()
            throw ValidationError("stepcompass-\(service) did not come online within 30 s:\n\(process.output)")
        }
        return BridgeUnderTest(process: process, probe: probe)
    }

    /// SIGTERM, then SIGKILL after 10 s; disconnects the probe.
    func stop() async {
        process.signal(SIGTERM)
        if await process.waitForExit(timeout: .seconds(10)) == nil { process.signal(SIGKILL) }
        await probe.disconnect()
    }
}

/// CPU seconds of the bridge, the broker, the load tool and the whole machine at one moment.
struct CPUSnapshot {
    var bridge: Double?
    var broker: Double?
    var own: Double?
    var machine: (busy: Double, total: Double)?

    static func take(bridge: Int32, broker: Int32?) -> CPUSnapshot {
        CPUSnapshot(
            bridge: ProcessCPU.seconds(pid: bridge), broker: broker.flatMap(ProcessCPU.seconds(pid:)),
            own: ProcessCPU.seconds(pid: getpid()), machine: ProcessCPU.machine())
    }

    /// Each figure as a fraction of one core over `seconds` (the machine: fraction of all cores busy).
    static func usage(from before: CPUSnapshot, to after: CPUSnapshot, seconds: Double) -> CPUUsage {
        func share(_ a: Double?, _ b: Double?) -> Double? {
            guard let a, let b else { return nil }
            return (a - b) / max(1e-9, seconds)
        }
        return CPUUsage(
            bridge: share(after.bridge, before.bridge), broker: share(after.broker, before.broker),
            loadTool: share(after.own, before.own),
            machine: after.machine.flatMap { a in before.machine.map { (a.busy - $0.busy) / max(1e-9, a.total - $0.total) } })
    }
}

/// CPU use over a run: fractions of one core (machine: of all cores).
struct CPUUsage {
    var bridge: Double?
    var broker: Double?
    var loadTool: Double?
    var machine: Double?

    private static func percent(_ value: Double?) -> String {
        value.map { String(format: "%.0f %%", 100 * $0) } ?? "n/a"
    }

    var text: String {
        "bridge \(Self.percent(bridge)) of one core, broker \(Self.percent(broker)), load tool \(Self.percent(loadTool)), machine \(Self.percent(machine)) busy"
    }

    var jsonFields: [(String, String)] {
        func value(_ v: Double?) -> String { v.map { String(format: "%.3f", $0) } ?? "null" }
        return [("bridgeCPU", value(bridge)), ("brokerCPU", value(broker)), ("loadToolCPU", value(loadTool)), ("machineBusy", value(machine))]
    }
}
