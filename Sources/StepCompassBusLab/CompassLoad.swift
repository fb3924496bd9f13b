import ArgumentParser
import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import StepCompassContract

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
            clients (each writing a tick's samples at once, or one libmosquitto publish per sample with \
            --bus-publishers), subscribes to stepcompass/+/heading, and reports the IMU messages/s offered and achieved, the \
            heading messages/s and per device, the latency of headings behind their samples second by second, and \
            the lag of each device's last heading behind its last sample. Then, the compass stopped, mosquitto_sub (mosquitto's \
            C client, output to /dev/null) receives --anchor-duration seconds of the same stream: the compass's CPU per \
            sample against it. Exit code 3 when the compass did not keep up or spent more than --anchor-goal times the \
            anchor's CPU per sample (the compass's figure covers the whole run, warm-up included; the anchor's the \
            whole of its own). With --runs N the whole measure (a new broker, the compass, then the anchor) is made N \
            times and the goal is judged on the median of the N ratios, the compass having kept up in every run: \
            this machine's own speed drifts by a third within an hour, so one ratio can land on either side.
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
    @Option(help: "Seconds of the same stream sent to mosquitto_sub, the C receive-only anchor, after the compass stops.")
    var anchorDuration = 10.0
    @Option(help: "The goal: the compass's CPU per sample at most this many times the anchor's.") var anchorGoal = 1.5
    @Option(help: "Measures to make, each with its anchor; the goal is judged on the median ratio.") var runs = 1
    @Flag(
        help: """
            With --bus-publishers: let the publishers' TCP coalesce small writes (Nagle; libmosquitto's own default). \
            The project's clients set TCP_NODELAY, which sends one segment per sample: dearer for the load tool and the \
            broker than 1,000 real devices would be for the server, whose CPUs are not on it.
            """)
    var coalesce = false
    @Flag(
        help: """
            Publish the samples through MosquittoBus clients, one libmosquitto publish per sample, instead of writing \
            each tick's samples as ready-made MQTT packets with one write per publisher. The broker and the service \
            see the same messages either way; this way the load tool itself needs several times the CPU.
            """)
    var busPublishers = false
    @Flag(help: "Print one JSON line instead of text.") var json = false

    func validate() throws {
        guard devices >= 1, devices <= 100_000 else { throw ValidationError("--devices must be 1...100000") }
        guard rate > 0, rate <= 1_000 else { throw ValidationError("--rate must be in (0, 1000] Hz") }
        guard duration > warmup, warmup >= 0 else { throw ValidationError("--duration must exceed --warmup") }
        guard publishers >= 1, publishers <= 64 else { throw ValidationError("--publishers must be 1...64") }
        guard maxRate > 0 else { throw ValidationError("--max-rate must be positive") }
        guard anchorDuration > 0, anchorGoal > 0 else { throw ValidationError("--anchor-duration and --anchor-goal must be positive") }
        guard runs >= 1, runs <= 20 else { throw ValidationError("--runs must be 1...20") }
    }

    /// `stepcompass-compass` next to this executable.
    var compassPath: String {
        if let compass { return compass }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("stepcompass-compass")
            .path
    }

    func run() async throws {
        try BridgeUnderTest.requireExecutable(compassPath, service: "compass")
        var reports: [LoadReport] = []
        for run in 1...runs {
            if runs > 1 && !json { print("run \(run) of \(runs):") }
            reports.append(
                try await PrivateBroker.with(configuration: "max_queued_messages 1000000") { broker in
                    try await measure(port: broker.port, brokerPID: ProcessCPU.pid(commandLineContaining: broker.directory.path))
                })
        }
        if runs == 1 {
            if !(reports[0].keptUp && reports[0].withinAnchorGoal) { throw ExitCode(3) }
            return
        }
        let ratios = reports.compactMap(\.anchorRatio).sorted()
        let median = ratios.count == runs ? ratios[runs / 2] : nil
        let keptUp = reports.allSatisfy(\.keptUp)
        let compass = reports.compactMap(\.serviceCPUPerSample).sorted()
        let anchors = reports.compactMap(\.anchorCPUPerSample).sorted()
        if !json {
            print(
                "medians of \(runs) runs: compass \(FigureText.microseconds(compass.isEmpty ? nil : compass[compass.count / 2])) a sample, mosquitto_sub \(FigureText.microseconds(anchors.isEmpty ? nil : anchors[anchors.count / 2])); ratios \(ratios.map { String(format: "%.2f×", $0) }.joined(separator: " ")), median \(median.map { String(format: "%.2f×", $0) } ?? "n/a") (goal ≤ \(String(format: "%g", anchorGoal))×); kept up in \(reports.filter(\.keptUp).count) of \(runs) runs"
            )
        }
        guard let median else {
            if !json { print("GOAL NOT CHECKED: a run's anchor or compass CPU could not be measured") }
            throw ExitCode(3)
        }
        let met = keptUp && median <= anchorGoal
        if !json { print(met ? "GOAL MET (median of \(runs) runs)" : "GOAL MISSED (median of \(runs) runs)") }
        if !met { throw ExitCode(3) }
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

    /// Runs the load against a broker and prints its report.
    private func measure(port: Int, brokerPID: Int32?) async throws -> LoadReport {
        let prefix = "stepcompass"
        let samples = LoadSamples(count: devices, prefix: prefix, seed: seed)
        let probe = try await client("probe", port: port)
        let status = try await probe.subscribe(to: try TopicFilter("\(prefix)/services/compass/status"), qos: .atLeastOnce)

        let service = try await ChildProcess(
            executable: compassPath, arguments: ["--max-rate", "\(maxRate)"],
            environment: [
                "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(port)", "MQTT_CLIENT_ID": "compass-load-service",
                "TOPIC_PREFIX": prefix, "LOG_LEVEL": "warning",
            ])
        defer { service.signal(SIGKILL) }
        try await waitForOnline(status, service: service)

        var senders: [MosquittoBus] = []
        var bursts: [RawMQTTClient] = []
        for index in 0..<publishers {
            if busPublishers {
                senders.append(try await client("pub-\(index)", port: port, noDelay: !coalesce))
            } else {
                bursts.append(
                    try await RawMQTTClient.onThread("compass-load-connect") {
                        try RawMQTTClient(port: port, clientID: "compass-load-pub-\(index)")
                    })
            }
        }
        let locationSenders = senders.isEmpty ? [probe] : senders
        for (index, device) in samples.devices.enumerated() {
            try await locationSenders[index % locationSenders.count].publish(
                BusMessage(
                    topic: "\(prefix)/\(device.id)/location", payload: samples.locationPayload(), qos: .atLeastOnce))
        }
        for sender in locationSenders { try await sender.flush() }

        // Headings are read back by a client of the load tool's own (see RawMQTTClient), subscribed before the
        // first sample.
        let reader = try await RawMQTTClient.onThread("compass-load-connect") {
            let client = try RawMQTTClient(port: port, clientID: "compass-load-headings")
            try client.subscribe("\(prefix)/+/heading")
            return client
        }
        let start = Date().timeIntervalSince1970 + 0.2
        let tally = LockedValue(HeadingTally(start: start))
        let receiver = Task {
            try await RawMQTTClient.onThread("compass-load-headings") {
                reader.readPublishes { topic, payload in
                    let now = Date().timeIntervalSince1970
                    let timestamp = DetectorLoad.timestamp(in: payload)
                    tally.withLock { $0.record(device: Self.device(inTopic: topic), timestamp: timestamp, receivedAt: now) }
                }
            }
        }
        let cpuBefore = (
            service: ProcessCPU.seconds(pid: service.pid), own: ProcessCPU.seconds(pid: getpid()),
            broker: brokerPID.flatMap(ProcessCPU.seconds(pid:)), machine: ProcessCPU.machine()
        )

        // Publish: tick k is due at start + k / rate and carries every device's sample stamped with that time.
        let ticks = Int((duration * rate).rounded())
        let shares = (0..<publishers).map { index in Array(stride(from: index, to: devices, by: publishers)) }
        /// Publishes `ticks` ticks of every device's sample, tick k due at `start` + k / rate; returns the samples sent
        /// and the worst lateness of a publisher.
        func publishAll(start: Double, ticks: Int) async throws -> (sent: Int, late: Double) {
            if !busPublishers {
                let rate = rate
                return try await PacedBursts.publish(
                    clients: bursts, shares: shares, label: "compass-load", start: start, rate: rate, ticks: ticks,
                    bytesPerPacket: 160
                ) { device, tick, stamp, packets in
                    samples.appendPublishPacket(device: device, seconds: Double(tick) / rate, timestamp: stamp, to: &packets)
                }
            }
            return try await withThrowingTaskGroup(of: (sent: Int, late: Double).self) { group in
                for (index, share) in shares.enumerated() {
                    let sender = senders[index]
                    group.addTask {
                        var sent = 0
                        var late = 0.0
                        for tick in 0..<ticks {
                            let due = start + Double(tick) / rate
                            let wait = due - Date().timeIntervalSince1970
                            if wait > 0 { try await Task.sleep(for: .seconds(wait)) } else { late = max(late, -wait) }
                            let stamp = Array(Timestamp.format(secondsSince1970: due).utf8)
                            let seconds = Double(tick) / rate
                            for device in share {
                                try await sender.publish(
                                    BusMessage(
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
        }
        let published = try await publishAll(start: start, ticks: ticks)
        let publishEnd = Date().timeIntervalSince1970
        let lastSampleTime = start + Double(ticks - 1) / rate
        let atStop = tally.withLock { $0 }
        let cpuAfter = (
            service: ProcessCPU.seconds(pid: service.pid), own: ProcessCPU.seconds(pid: getpid()),
            broker: brokerPID.flatMap(ProcessCPU.seconds(pid:)), machine: ProcessCPU.machine()
        )
        try await Task.sleep(for: .seconds(drain))
        reader.stopReading()
        _ = try? await receiver.value
        reader.disconnect()
        let final = tally.withLock { $0 }

        let serviceAlive = service.isRunning
        service.signal(SIGTERM)
        _ = await service.waitForExit(timeout: .seconds(10))

        // The anchor: mosquitto's own C client receiving the same stream with the compass stopped, its CPU a sample.
        let anchorTicks = Int((anchorDuration * rate).rounded())
        let anchor = try await ReceiveAnchor.measure(port: port, filter: "\(prefix)/+/imu", label: "compass-load") { start in
            try await publishAll(start: start, ticks: anchorTicks).sent
        }

        let report = LoadReport(
            devices: devices, rate: rate, duration: duration, warmup: warmup, maxRate: maxRate,
            published: published.sent, worstLateness: published.late, publishSeconds: publishEnd - start,
            lastSampleTime: lastSampleTime, atStop: atStop, final: final,
            serviceCPU: difference(cpuAfter.service, cpuBefore.service),
            loadToolCPU: difference(cpuAfter.own, cpuBefore.own),
            brokerCPU: difference(cpuAfter.broker, cpuBefore.broker), coalesced: coalesce && busPublishers, burst: !busPublishers, drain: drain,
            machineBusy: cpuAfter.machine.flatMap { after in
                cpuBefore.machine.map { (after.busy - $0.busy) / max(1e-9, after.total - $0.total) }
            },
            serviceAlive: serviceAlive, anchorCPUPerSample: anchor, anchorGoal: anchorGoal)
        print(json ? report.json : report.text)

        for sender in senders { await sender.disconnect() }
        for publisher in bursts { _ = try? await RawMQTTClient.onThread("compass-load-disconnect") { publisher.disconnect() } }
        await probe.disconnect()
        return report
    }

    /// The device id of a topic `prefix/<device>/heading`: its second level.
    static func device(inTopic topic: ArraySlice<UInt8>) -> String {
        guard let first = topic.firstIndex(of: UInt8(ascii: "/")) else { return "" }
        let rest = topic[(first + 1)...]
        return String(decoding: rest[..<(rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex)], as: UTF8.self)
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
