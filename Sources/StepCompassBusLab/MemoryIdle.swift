import ArgumentParser
import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus

/// `stepcompass-buslab memory-idle`: starts every long-running service as `make run` would (one private broker, no
/// walker), waits until all are online and idle, and reports each one's resident memory, what it is made of, and
/// the same figures for mosquitto and for mosquitto's own C client (`mosquitto_sub`) connected to it.
struct MemoryIdle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory-idle",
        abstract: "Report each service's idle resident memory beside mosquitto and its C client.",
        discussion: """
            Starts a private mosquitto, mosquitto_sub on it (the C anchor) and the compass, position, activity, \
            journal, bridge, markers and dashboard executables (found next to this one), waits until every service \
            says online, lets them idle for --settle seconds and reads /proc/<pid>/smaps_rollup: RSS (what top \
            shows), the anonymous part (heap, stacks: memory of its own), the file-backed part (code and data of \
            the executable and the shared libraries, loaded once for every process that maps them), PSS (RSS with \
            each shared page divided among the processes that map it) and USS (the pages only this process maps: \
            what stopping it gives back). Then the largest mappings of the first service. Exit code 3 when a \
            service's RSS is --goal MiB or more.
            """)

    @Option(help: "Seconds to let the services idle once all are online.") var settle = 5.0
    @Option(help: "The goal: each service's RSS below this many MiB.") var goal = 20.0
    @Option(help: "Mappings listed for the first service.") var mappings = 8
    @Option(help: "Folder of the service executables (default: this executable's).") var executables: String?

    static let services = ["position", "compass", "activity", "journal", "bridge", "markers", "dashboard"]

    func validate() throws {
        guard settle >= 0, goal > 0 else { throw ValidationError("--settle must be at least 0 and --goal positive") }
    }

    func run() async throws {
        let folder =
            executables.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: BridgeUnderTest.executablePath(nil, executable: "x")).deletingLastPathComponent()
        for name in Self.services {
            try BridgeUnderTest.requireExecutable(folder.appendingPathComponent("stepcompass-\(name)").path, service: name)
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("memory-idle-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let markers = work.appendingPathComponent("markers.geojson")
        try Data(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Start"},"geometry":{"type":"Point","coordinates":[11.5918,48.1527]}}]}"#
                .utf8
        ).write(to: markers)
        // Nothing listens on port 9 (discard) on loopback: the journal, which fetches nothing while no one walks,
        // could not reach the internet if it tried.
        let services = [
            ChaosStack.Service(name: "position", arguments: []),
            ChaosStack.Service(name: "compass", arguments: []),
            ChaosStack.Service(name: "activity", arguments: ["--data-dir", work.appendingPathComponent("activity").path]),
            ChaosStack.Service(
                name: "journal",
                arguments: [
                    "--data-dir", work.appendingPathComponent("journal").path, "--cache-dir", work.appendingPathComponent("photos").path,
                    "--wikimedia-url", "http://127.0.0.1:9/w/api.php",
                ]),
            ChaosStack.Service(
                name: "bridge", arguments: ["--http-host", "127.0.0.1", "--http-port", "\(try MosquittoBrokerProcess.freePort())"]),
            ChaosStack.Service(
                name: "markers", arguments: ["--source", markers.path, "--cache-dir", work.appendingPathComponent("markers-cache").path]),
            ChaosStack.Service(name: "dashboard", arguments: ["--http-port", "\(try MosquittoBrokerProcess.freePort())"]),
        ]
        let stack = try await ChaosStack(label: "memory-idle", executables: folder, folder: work, services: services)
        let anchor: ChildProcess
        do {
            anchor = try await ChildProcess(
                executable: "/usr/bin/env", arguments: ["mosquitto_sub", "-h", "127.0.0.1", "-p", "\(stack.broker.port)", "-t", "memory-idle/none"],
                outputFile: work.appendingPathComponent("mosquitto_sub.log"))
        } catch {
            await stack.killAll()
            throw error
        }
        let passed: Bool
        do {
            passed = try await measure(stack: stack, anchor: anchor)
        } catch {
            anchor.signal(SIGKILL)
            await stack.killAll()
            throw error
        }
        anchor.signal(SIGTERM)
        _ = await anchor.waitForExit(timeout: .seconds(5))
        _ = await stack.stopAll()
        if !passed { throw ExitCode(3) }
    }

    private func measure(stack: ChaosStack, anchor: ChildProcess) async throws -> Bool {
        var logger = Logger(label: "memory-idle")
        logger.logLevel = .warning
        let probe = try MosquittoBus(
            configuration: MosquittoConfiguration(host: "127.0.0.1", port: stack.broker.port, clientID: "memory-idle-probe", cleanStart: true),
            logger: logger)
        try await probe.connect()
        let statuses = try await probe.subscribe(to: try TopicFilter("stepcompass/services/+/status"), qos: .atLeastOnce)
        for name in Self.services { try await stack.start(name) }
        let online = await withTaskGroup(of: Set<String>?.self) { group in
            group.addTask {
                var online = Set<String>()
                for await message in statuses {
                    let name = message.topic.split(separator: "/").dropFirst(2).first.map(String.init) ?? ""
                    if String(decoding: message.payload, as: UTF8.self).contains("\"online\"") { online.insert(name) }
                    if Self.services.allSatisfy(online.contains) { return online }
                }
                return online
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await probe.disconnect()
        guard online == Set(Self.services) else {
            let crashed = await stack.crashed()
            throw ValidationError("not every service came online within 60 s\(crashed.isEmpty ? "" : ":\n" + crashed.joined(separator: "\n"))")
        }
        try await Task.sleep(for: .seconds(settle))

        var rows: [(name: String, figures: [String: Int])] = []
        for name in Self.services {
            guard let pid = await stack.pid(of: name), let figures = ProcessMemory.rollupKiB(pid: pid) else {
                throw ValidationError("cannot read the memory of stepcompass-\(name)")
            }
            rows.append((name, figures))
        }
        let brokerPID = ProcessCPU.pid(commandLineContaining: stack.broker.directory.path)
        let anchors: [(name: String, figures: [String: Int])] = [
            ("mosquitto (broker)", brokerPID.flatMap(ProcessMemory.rollupKiB(pid:)) ?? [:]),
            ("mosquitto_sub (C client)", ProcessMemory.rollupKiB(pid: anchor.pid) ?? [:]),
        ]
        print(
            "memory-idle: every service online and idle for \(String(format: "%g", settle)) s; MiB (RSS = anonymous + file-backed)")
        print(Self.header)
        for row in rows + anchors { print(Self.line(row.name, row.figures)) }
        let client = anchors[1].figures["Rss"].map { Double($0) / 1_024 }
        let worst = rows.compactMap { row in row.figures["Rss"].map { (row.name, Double($0) / 1_024) } }.max { $0.1 < $1.1 }
        if let worst {
            let ratio = client.map { String(format: ", %.1f× mosquitto_sub's %.1f MiB", worst.1 / $0, $0) } ?? ""
            print(String(format: "largest service RSS: %@ %.1f MiB%@; goal: under %g MiB", worst.0, worst.1, ratio, goal))
        }
        if let first = Self.services.first, let pid = await stack.pid(of: first) {
            let parts = ProcessMemory.residentByMapping(pid: pid).prefix(mappings).map {
                String(format: "%@ %.1f", ($0.name as NSString).lastPathComponent, Double($0.kib) / 1_024)
            }
            print("stepcompass-\(first)'s largest mappings (MiB): \(parts.joined(separator: ", "))")
        }
        let missed = rows.filter { Double($0.figures["Rss"] ?? Int.max) / 1_024 >= goal }.map(\.name)
        print(
            missed.isEmpty
                ? "goal met: every service under \(String(format: "%g", goal)) MiB"
                : "GOAL MISSED: \(missed.joined(separator: ", ")) at \(String(format: "%g", goal)) MiB or more")
        return missed.isEmpty
    }

    private static let header = "  " + pad("", 26) + ["RSS", "anon", "file", "PSS", "USS"].map { pad($0, 7, left: true) }.joined()

    private static func line(_ name: String, _ figures: [String: Int]) -> String {
        func mib(_ kib: Int?) -> String { kib.map { String(format: "%.1f", Double($0) / 1_024) } ?? "n/a" }
        let rss = figures["Rss"]
        let anonymous = figures["Anonymous"]
        let file = rss.flatMap { rss in anonymous.map { rss - $0 } }
        let unique = figures["Private_Clean"].flatMap { clean in figures["Private_Dirty"].map { clean + $0 } }
        return "  " + pad(name, 26) + [rss, anonymous, file, figures["Pss"], unique].map { pad(mib($0), 7, left: true) }.joined()
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }
}
