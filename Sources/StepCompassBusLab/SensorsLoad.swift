import ArgumentParser
import Bus
import BusTesting
import Foundation
import StepCompassContract

/// `stepcompass-buslab sensors-load`: runs the real `stepcompass-sensors` executable with a fleet of N walkers at real
/// time through a private mosquitto, and reports the simulator's CPU and whether its IMU samples all arrived.
///
/// The issue's goal: 1,000 walkers at real time (IMU at 50 Hz) within one core, so that load tests can be driven by
/// the simulator. The goal is an absolute one; the report gives the ratio against it.
struct SensorsLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensors-load",
        abstract: "Run the real simulator with N walkers at real time and report its CPU and whether it kept up.",
        discussion: """
            Starts a private mosquitto on a free port and stepcompass-sensors --devices N against it, counts the IMU \
            messages that arrive (a subscriber of the load tool's own on stepcompass/+/imu), and measures the \
            simulator's CPU over --duration seconds after --warmup. It kept up when at least 98 % of the IMU samples \
            due in that window (N × --imu-rate a second) arrived in it. Exit code 3 when it did not keep up or used \
            more than --goal of one core in any of --runs runs.
            """)

    @Option(help: "Number of simulated walkers.") var walkers = 1_000
    @Option(help: "IMU samples per second per walker (the simulator's --imu-rate).") var imuRate = 50.0
    @Option(help: "Seconds measured.") var duration = 20.0
    @Option(help: "Seconds after the simulator is online before measuring.") var warmup = 5.0
    @Option(help: "The goal: the simulator's CPU as a fraction of one core.") var goal = 1.0
    @Option(help: "Runs, each with a new broker and simulator; every one must meet the goal.") var runs = 1
    @Option(help: "Path of stepcompass-sensors (default: next to this executable).") var executable: String?
    @Flag(help: "Print one JSON line instead of text.") var json = false

    func validate() throws {
        guard walkers >= 1, walkers <= 100_000 else { throw ValidationError("--walkers must be 1...100000") }
        guard imuRate > 0, imuRate <= 1_000 else { throw ValidationError("--imu-rate must be in (0, 1000] Hz") }
        guard duration > 0, warmup >= 0 else { throw ValidationError("--duration must be positive, --warmup at least 0") }
        guard goal > 0 else { throw ValidationError("--goal must be positive") }
        guard runs >= 1, runs <= 100 else { throw ValidationError("--runs must be 1...100") }
    }

    func run() async throws {
        let path = BridgeUnderTest.executablePath(executable, executable: "stepcompass-sensors")
        try BridgeUnderTest.requireExecutable(path, service: "sensors")
        var missed = 0
        for run in 1...runs {
            if runs > 1, !json { print("run \(run) of \(runs)") }
            do {
                // The project's broker settings: a subscriber that falls 1,000 messages behind (the default) loses
                // samples, and the load tool's would count them against the simulator.
                try await PrivateBroker.measure(configuration: "max_queued_messages 1000000") { broker in
                    try await measure(path: path, port: broker.port, brokerPID: ProcessCPU.pid(commandLineContaining: broker.directory.path))
                }
            } catch let exit as ExitCode where exit == ExitCode(3) {
                missed += 1
            }
        }
        if runs > 1, !json { print("sensors-load: the goal held in \(runs - missed) of \(runs) runs") }
        if missed > 0 { throw ExitCode(3) }
    }

    /// Runs the fleet against a broker; returns whether the goal held.
    private func measure(path: String, port: Int, brokerPID: Int32?) async throws -> Bool {
        let prefix = "stepcompass"
        let reader = try await RawMQTTClient.onThread("sensors-load-connect") {
            let client = try RawMQTTClient(port: port, clientID: "sensors-load-imu")
            try client.subscribe("\(prefix)/+/imu")
            return client
        }
        let received = LockedValue(0)
        let receiver = Task {
            try await RawMQTTClient.onThread("sensors-load-imu") {
                reader.readPublishes { _, _ in received.withLock { $0 += 1 } }
            }
        }
        let simulator = try await BridgeUnderTest.start(
            path: path, arguments: ["--devices", "\(walkers)", "--imu-rate", "\(imuRate)"], port: port, prefix: prefix,
            label: "sensors-load", service: "sensors")
        try await Task.sleep(for: .seconds(warmup))
        let before = (cpu: CPUSnapshot.take(bridge: simulator.process.pid, broker: brokerPID), count: received.withLock { $0 })
        let clock = ContinuousClock()
        let start = clock.now
        try await Task.sleep(for: .seconds(duration))
        let after = (cpu: CPUSnapshot.take(bridge: simulator.process.pid, broker: brokerPID), count: received.withLock { $0 })
        let seconds = (clock.now - start).inSeconds
        let alive = simulator.process.isRunning
        await simulator.stop()
        reader.stopReading()
        _ = try? await receiver.value
        reader.disconnect()

        let usage = CPUSnapshot.usage(from: before.cpu, to: after.cpu, seconds: seconds)
        let due = Double(walkers) * imuRate * seconds
        let arrived = Double(after.count - before.count)
        let keptUp = alive && arrived >= 0.98 * due
        let withinGoal = usage.bridge.map { $0 <= goal } ?? false
        // CPU per sample due: what the simulator had to publish, whether or not the broker delivered it.
        let perSample = usage.bridge.map { $0 * seconds / max(1, due) }
        if json {
            let fields: [(String, String)] =
                [
                    ("walkers", "\(walkers)"), ("imuRate", "\(imuRate)"), ("seconds", String(format: "%.2f", seconds)),
                    ("imuDue", String(format: "%.0f", due)), ("imuArrived", String(format: "%.0f", arrived)),
                    ("keptUp", "\(keptUp)"), ("goal", "\(goal)"), ("withinGoal", "\(withinGoal)"),
                    ("microsecondsPerSample", perSample.map { String(format: "%.2f", $0 * 1e6) } ?? "null"),
                ]
                + usage.jsonFields.map { ($0.0 == "bridgeCPU" ? "simulatorCPU" : $0.0, $0.1) }
            print("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
        } else {
            let cpu = usage.bridge.map { String(format: "%.0f %% of one core", 100 * $0) } ?? "n/a"
            let ratio = usage.bridge.map { String(format: "%.2f× the goal of %.0f %%", $0 / goal, 100 * goal) } ?? "n/a"
            print(
                """
                sensors-load: \(walkers) walkers at real time, IMU at \(String(format: "%g", imuRate)) Hz, \
                \(String(format: "%.1f", seconds)) s measured after \(String(format: "%g", warmup)) s
                  IMU samples: \(String(format: "%.0f", arrived)) arrived of \(String(format: "%.0f", due)) due \
                (\(String(format: "%.1f", 100 * arrived / max(1, due))) %)\(alive ? "" : "; the simulator exited early")
                  simulator: \(cpu) (\(ratio)), \(FigureText.microseconds(perSample)) of CPU per IMU sample
                  broker \(usage.broker.map { String(format: "%.0f %%", 100 * $0) } ?? "n/a"), load tool \
                \(usage.loadTool.map { String(format: "%.0f %%", 100 * $0) } ?? "n/a"), machine \
                \(usage.machine.map { String(format: "%.0f %%", 100 * $0) } ?? "n/a") busy
                  \(keptUp && withinGoal ? "goal met" : keptUp ? "GOAL MISSED: more than the goal's CPU" : "GOAL MISSED: did not keep up")
                """)
        }
        return keptUp && withinGoal
    }
}
