import ArgumentParser
import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus

/// `stepcompass-buslab compass-load`: drives the real `stepcompass-compass` executable with N devices × R Hz of IMU
/// samples through a private mosquitto, and reports whether it keeps up.
///
/// The load tool, the broker and the service share the machine, as they would on a small server; the report
/// gives each one's CPU so the figures can be read accordingly.
struct CompassLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compass-load",
        abstract: "Load the real compass service with N devices × R Hz of IMU samples and report whether it keeps up.",
        discussion: """
            Starts a private mosquitto on a free port and the stepcompass-compass executable against it, publishes \
            flat, slowly turning devices' IMU samples (QoS 0, stamped with the wall clock) from --publishers \
            clients, subscribes to stepcompass/+/heading, and reports the IMU messages/s offered and achieved, the \
            heading messages/s and per device, the latency of headings behind their samples second by second, and \
            the lag of each device's last heading behind its last sample. Exit code 3 when it did not keep up.
            """)

    @Option(help: "Number of simulated devices.") var devices = 1_000
    @Option(help: "IMU samples per second per device.") var rate = 50.0
    @Option(help: "Seconds of load.") var duration = 20.0
    @Option(help: "Seconds at the start left out of the latency figures (connection and first-sample set-up).")
    var warmup = 3.0
    @Option(help: "Seconds to keep receiving after the last sample.") var drain = 3.0
    @Option(help: "Publishing clients (each publishes a share of the devices).") var publishers = 2
    @Option(help: "The compass service's --max-rate.") var maxRate = 10.0
    @Option(help: "Path of stepcompass-compass (default: next to this executable).") var compass: String?
    @Option(help: "Seed of the devices' start headings and turn rates.") var seed: UInt64 = 1
    @Flag(help: """
        Let the publishers' TCP coalesce small writes (Nagle; libmosquitto's own default). The project's clients set         TCP_NODELAY, which sends one segment per sample: dearer for the load tool and the broker than 1,000 real         devices would be for the server, whose CPUs are not on it.
        """)
    var coalesce = false
    @Flag(help: "Print one JSON line instead of text.") var json = false

    func validate() throws {
        guard devices >= 1, devices <= 100_000 else { throw ValidationError("--devices must be 1...100000") }
        guard rate > 0, rate <= 1_000 else { throw ValidationError("--rate must be in (0, 1000] Hz") }
        guard duration > warmup, warmup >= 0 else { throw ValidationError("--duration must exceed --warmup") }
        guard publishers >= 1, publishers <= 64 else { throw ValidationError("--publishers must be 1...64") }
        guard maxRate > 0 else { throw ValidationError("--max-rate must be positive") }
    }

    /// `stepcompass-compass` next to this executable.
    var compassPath: String {
        if let compass { return compass }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("stepcompass-compass")
            .path
    }

    func run() async throws {
        guard FileManager.default.isExecutableFile(atPath: compassPath) else {
            throw ValidationError("no stepcompass-compass at \(compassPath): build it or pass --compass")
        }
        let broker = try await MosquittoBrokerProcess.launch(configuration: "max_queued_messages 1000000")
        do {
            let passed = try await measure(port: broker.port, brokerPID: ProcessCPU.pid(commandLineContaining: broker.directory.path))
            await broker.shutdown()
            if !passed { throw ExitCode(3) }
        } catch {
            await broker.shutdown()
            throw error
        }
    }

    private func client(_ role: String, port: Int, noDelay: Bool = true) async throws -> MosquittoBus {
        var logger = Logger(label: "compass-load")
        logger.logLevel = .warning
        let bus = try MosquittoBus(
            configuration: MosquittoConfiguration(
                host: "127.0.0.1", port: port, clientID: "compass-load-\(role)", cleanStart: true, maxInflight: 10_000,
                tcpNoDelay: noDelay),
            logger: logger)
        try await bus.connect()
        return bus
    }

    /// Runs the load against a broker; returns whether the service kept up.
    private func measure(port: Int, brokerPID: Int32?) async throws -> Bool {
        let prefix = "stepcompass"
        let samples = LoadSamples(count: devices, prefix: prefix, seed: seed)
        let probe = try await client("probe", port: port)
        let status = try await probe.subscribe(to: try TopicFilter("\(prefix)/services/compass/status"), qos: .atLeastOnce)
        let headings = try await probe.subscribe(to: try TopicFilter("\(prefix)/+/heading"), qos: .atMostOnce)

        let service = try ChildProcess(
            executable: compassPath, arguments: ["--max-rate", "\(maxRate)"],
            environment: [
                "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(port)", "MQTT_CLIENT_ID": "compass-load-service",
                "TOPIC_PREFIX": prefix, "LOG_LEVEL": "warning",
            ])
        defer { service.signal(SIGKILL) }
        try await waitForOnline(status, service: service)

        var senders: [MosquittoBus] = []
        for index in 0..<publishers {
            senders.append(try await client("pub-\(index)", port: port, noDelay: !coalesce))
        }
        for (index, device) in samples.devices.enumerated() {
            try await senders[index % publishers].publish(BusMessage(
                topic: "\(prefix)/\(device.id)/location", payload: samples.locationPayload(), qos: .atLeastOnce))
        }
        for sender in senders { try await sender.flush() }

        let start = Date().timeIntervalSince1970 + 0.2
        let tally = LockedValue(HeadingTally(start: start))
        let receiver = Task {
            for await message in headings {
                let now = Date().timeIntervalSince1970
                let device = message.topic.split(separator: "/").dropFirst().first.map(String.init) ?? ""
                let timestamp = LoadTimestamp.parse(field: message.payload)
                tally.withLock { $0.record(device: device, timestamp: timestamp, receivedAt: now) }
            }
        }
        let cpuBefore = (service: ProcessCPU.seconds(pid: service.pid), own: ProcessCPU.seconds(pid: getpid()),
                         broker: brokerPID.flatMap(ProcessCPU.seconds(pid:)), machine: ProcessCPU.machine())

        // Publish: tick k is due at start + k / rate and carries every device's sample stamped with that time.
        let ticks = Int((duration * rate).rounded())
        let shares = (0..<publishers).map { index in Array(stride(from: index, to: devices, by: publishers)) }
        let published = try await withThrowingTaskGroup(of: (sent: Int, late: Double).self) { group in
            for (index, share) in shares.enumerated() {
                let sender = senders[index]
                group.addTask {
                    var sent = 0
                    var late = 0.0
                    for tick in 0..<ticks {
                        let due = start + Double(tick) / rate
                        let wait = due - Date().timeIntervalSince1970
                        if wait > 0 { try await Task.sleep(for: .seconds(wait)) } else { late = max(late, -wait) }
                        let stamp = LoadTimestamp.format(due)
                        let seconds = Double(tick) / rate
                        for device in share {
                            try await sender.publish(BusMessage(
                                topic: samples.devices[device].topic,
                                payload: samples.payload(device: device, seconds: seconds, timestamp: stamp),
                                qos: .atMostOnce))
                            sent += 1
                        }
                    }
                    try await sender.flush()
                    return (sent, late)
                }
            }
            var total = (sent: 0, late: 0.0)
            for try await result in group { total = (total.sent + result.sent, max(total.late, result.late)) }
            return total
        }
        let publishEnd = Date().timeIntervalSince1970
        let lastSampleTime = start + Double(ticks - 1) / rate
        let atStop = tally.withLock { $0 }
        let cpuAfter = (service: ProcessCPU.seconds(pid: service.pid), own: ProcessCPU.seconds(pid: getpid()),
                        broker: brokerPID.flatMap(ProcessCPU.seconds(pid:)), machine: ProcessCPU.machine())
        try await Task.sleep(for: .seconds(drain))
        receiver.cancel()
        let final = tally.withLock { $0 }

        let report = LoadReport(
            devices: devices, rate: rate, duration: duration, warmup: warmup, maxRate: maxRate,
            published: published.sent, worstLateness: published.late, publishSeconds: publishEnd - start,
            lastSampleTime: lastSampleTime, atStop: atStop, final: final,
            serviceCPU: difference(cpuAfter.service, cpuBefore.service),
            loadToolCPU: difference(cpuAfter.own, cpuBefore.own),
            brokerCPU: difference(cpuAfter.broker, cpuBefore.broker), coalesced: coalesce, drain: drain,
            machineBusy: cpuAfter.machine.flatMap { after in
                cpuBefore.machine.map { (after.busy - $0.busy) / max(1e-9, after.total - $0.total) }
            },
            serviceAlive: service.isRunning)
        print(json ? report.json : report.text)

        service.signal(SIGTERM)
        _ = await service.waitForExit(timeout: .seconds(10))
        for sender in senders { await sender.disconnect() }
        await probe.disconnect()
        return report.keptUp
    }

    private func difference(_ after: Double?, _ before: Double?) -> Double? {
        guard let after, let before else { return nil }
        return after - before
    }

    private func waitForOnline(_ status: BusSubscription, service: ChildProcess) async throws {
        let found = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await message in status where String(decoding: message.payload, as: UTF8.self).contains("\"online\"") {
                    return true
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard found, service.isRunning else {
            throw ValidationError("stepcompass-compass did not come online within 30 s:\n\(service.output)")
        }
    }
}
