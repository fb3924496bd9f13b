import BusTesting
import Foundation
import StepCompassContract

/// One chaos run's stack: a private mosquitto with persistence (the project's broker settings), the photo stand-in, and
/// every long-running service but the walker as its own process, each with its data in one folder. The driver kills
/// and restarts them through it; its log holds what happened when.
actor ChaosStack {
    /// A service the stack runs: its contract name and its arguments beyond the broker's.
    struct Service: Sendable {
        let name: String
        let arguments: [String]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The broker settings of `Config/mosquitto/stepcompass.conf` that matter here (persistence, queues, autosave).
    static let brokerSettings = """
        max_queued_messages 1000000
        max_inflight_messages 1000
        autosave_interval 300
        persistent_client_expiration 2d
        """

    let label: String
    let folder: URL
    let broker: MosquittoBrokerProcess
    let executables: URL
    private let services: [String: Service]
    private var processes: [String: ChildProcess] = [:]
    private let started = ContinuousClock.now
    private(set) var events: [String] = []

    /// Starts the broker; the services start with ``start(_:)``.
    init(label: String, executables: URL, folder: URL, services: [Service]) async throws {
        self.label = label
        self.folder = folder
        self.executables = executables
        self.services = Dictionary(uniqueKeysWithValues: services.map { ($0.name, $0) })
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // No configuration file: the repository's Config/*.json would apply when run from its folder.
        try Data("{}".utf8).write(to: folder.appendingPathComponent("empty.json"))
        broker = try await MosquittoBrokerProcess.launch(configuration: Self.brokerSettings)
    }

    /// Notes `text` in the run's log, with the seconds since the stack started.
    func note(_ text: String) {
        events.append(String(format: "[%8.3f s] %@", (ContinuousClock.now - started).inSeconds, text))
    }

    /// The environment every process of the stack gets: the broker, a stable client id, `info` logs.
    func environment(_ service: String) -> [String: String] {
        [
            "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(broker.port)", "MQTT_CLIENT_ID": "stepcompass-\(service)",
            "TOPIC_PREFIX": "stepcompass", "LOG_LEVEL": "info", "CONFIG_FILE": folder.appendingPathComponent("empty.json").path,
        ]
    }

    /// Starts (or restarts) `name`; its output goes to `<folder>/<name>.log`, appended across restarts.
    func start(_ name: String) async throws {
        guard let service = services[name] else { throw Failure(description: "no service \(name)") }
        let process = try await ChildProcess(
            executable: executables.appendingPathComponent("stepcompass-\(name)").path, arguments: service.arguments,
            environment: environment(name), outputFile: folder.appendingPathComponent("\(name).log"))
        processes[name] = process
        note("started \(name) (pid \(process.pid))")
    }

    /// The process id of `name`, while it runs.
    func pid(of name: String) -> Int32? { processes[name]?.pid }

    /// Waits for `name` to exit on its own (the walker at the end of its walk); nil when it is still running after
    /// `timeout`.
    func waitForExit(_ name: String, timeout: Duration) async -> Int32? {
        guard let process = processes[name] else { return nil }
        let status = await process.waitForExit(timeout: timeout)
        if status != nil, processes[name] === process { processes[name] = nil }
        note("\(name) exited with \(status.map { "status \($0)" } ?? "nothing yet")")
        return status
    }

    /// SIGKILLs `name` and waits for it to exit.
    func kill(_ name: String) async {
        guard let process = processes.removeValue(forKey: name) else { return }
        process.signal(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(10))
        note("SIGKILLed \(name) (pid \(process.pid))")
    }

    /// Stops the broker, with SIGKILL as a crash would (persistence as last saved) or SIGTERM (saved on the way out).
    func stopBroker(sigkill: Bool) async {
        if sigkill { await broker.kill9() } else { await broker.shutdown() }
        note("\(sigkill ? "SIGKILLed" : "SIGTERMed") the broker")
    }

    /// Starts the broker again on its port, with its persistence.
    func startBroker() async throws {
        try await broker.startAndWait()
        note("the broker is back")
    }

    /// The services that have exited on their own since they were started (a crash), with their last output.
    func crashed() -> [String] {
        processes.filter { !$0.value.isRunning }.map {
            "\($0.key) exited with \($0.value.exitStatusIfExited() ?? -1): …\($0.value.output.suffix(800))"
        }
    }

    /// SIGTERMs every service and the broker, and returns each service's exit status (nil: still running after
    /// `timeout`, then SIGKILLed).
    func stopAll(timeout: Duration = .seconds(5)) async -> [String: Int32?] {
        var statuses: [String: Int32?] = [:]
        for (_, process) in processes { process.signal(SIGTERM) }
        for (name, process) in processes.sorted(by: { $0.key < $1.key }) {
            let status = await process.waitForExit(timeout: timeout)
            if status == nil {
                process.signal(SIGKILL)
                _ = await process.waitForExit(timeout: .seconds(5))
            }
            statuses[name] = status
        }
        processes = [:]
        await broker.shutdown()
        keepBrokerFiles()
        note("stopped every service and the broker")
        return statuses
    }

    /// Copies the broker's folder (its persistence, configuration and log) into the run's, which outlives it.
    private func keepBrokerFiles() {
        try? FileManager.default.copyItem(at: broker.directory, to: folder.appendingPathComponent("broker"))
    }

    /// Kills whatever is still running (a failed run).
    func killAll() async {
        for (_, process) in processes { process.signal(SIGKILL) }
        for (_, process) in processes { _ = await process.waitForExit(timeout: .seconds(5)) }
        processes = [:]
        await broker.kill9()
        keepBrokerFiles()
    }
}
