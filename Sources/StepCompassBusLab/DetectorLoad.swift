import ArgumentParser
import Bus
import BusTesting
import Foundation
import StepCompassContract

/// `stepcompass-buslab detector-load`: drives the real `stepcompass-bridge` (HTTP push off) with N walking devices
/// × R Hz of IMU samples through a private mosquitto, and reports whether its step detector keeps up.
struct DetectorLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detector-load",
        abstract: "Load the bridge's step detector with N walking devices × R Hz of IMU samples and report whether it keeps up.",
        discussion: """
            Starts a private mosquitto on a free port and stepcompass-bridge --http-port -1 against it, publishes \
            walking devices' IMU samples on stepcompass/walk-N/imu (QoS 0, stamped with the wall clock; gravity plus \
            a ~1.5 m/s² bounce at --cadence with harmonics, each device with its own phase) as ready-made MQTT \
            packets from --publishers clients, and reads stepcompass/+/steps back. Before the run the load tool \
            runs the same step detector over every device's samples, so it knows how many steps each device should \
            get and which sample completes each step: latency is the steps message's arrival minus that sample's \
            timestamp. Reports samples/s offered and achieved, samples the bridge certainly processed, steps per \
            device per second, latency p50/p99 second by second, CPU of the bridge, the broker and the load tool, and \
            the bridge's CPU per sample with the rate one core would carry at it. Then, with the bridge stopped, \
            mosquitto's C client mosquitto_sub (output to /dev/null) receives --anchor-duration seconds of the same \
            stream: its CPU per sample is the least any libmosquitto program spends receiving it. Exit code 3 when \
            the bridge did not keep up or one core would carry fewer than --goal-rate samples a second (the issue's \
            goal: 2,000 devices at 100 Hz; a 2-core machine cannot carry that load itself, so measure at a load it \
            can, such as --devices 700).
            """)

    @Option(help: "Number of simulated walking devices.") var devices = 2_000
    @Option(help: "IMU samples per second per device.") var rate = 100.0
    @Option(help: "Seconds of load.") var duration = 20.0
    @Option(help: "Steps per second of the simulated walkers.") var cadence = 1.8
    @Option(help: "Seconds at the start left out of the rate and latency figures (walk confirmation: 5 steps).")
    var warmup = 4.0
    @Option(help: "Most seconds to keep receiving after the last sample (ends early once every count is complete).")
    var drain = 5.0
    @Option(help: "Publishing clients (each publishes a share of the devices).") var publishers = 2
    @Option(help: "Path of stepcompass-bridge (default: next to this executable).") var bridge: String?
    @Option(help: "Seed of the devices' phases.") var seed: UInt64 = 1
    @Option(help: "Seconds of the same stream sent to mosquitto_sub, the C receive-only anchor, after the bridge stops.")
    var anchorDuration = 10.0
    @Option(
        help: "The goal: samples a second the bridge's detector handles on one core, from its CPU per sample (the issue's 2,000 devices × 100 Hz).")
    var goalRate = 200_000.0
    @Flag(help: "Print one JSON line instead of text.") var json = false

    func validate() throws {
        guard devices >= 1, devices <= 100_000 else { throw ValidationError("--devices must be 1...100000") }
        guard rate >= 20, rate <= 1_000 else { throw ValidationError("--rate must be 20...1000 Hz") }
        guard duration > warmup + 1, warmup >= 0 else { throw ValidationError("--duration must exceed --warmup by 1 s") }
        guard cadence >= 0.8, cadence <= 2.8 else { throw ValidationError("--cadence must be 0.8...2.8 steps/s") }
        guard publishers >= 1, publishers <= 64 else { throw ValidationError("--publishers must be 1...64") }
        guard anchorDuration > 0, goalRate > 0 else { throw ValidationError("--anchor-duration and --goal-rate must be positive") }
    }

    func run() async throws {
        let path = BridgeUnderTest.executablePath(bridge)
        try await PrivateBroker.measure(configuration: "max_queued_messages 1000000") { broker in
            try await measure(port: broker.port, brokerPID: ProcessCPU.pid(commandLineContaining: broker.directory.path), path: path)
        }
    }

    private func measure(port: Int, brokerPID: Int32?, path: String) async throws -> Bool {
        let prefix = "stepcompass"
        let ticks = Int((duration * rate).rounded())
        let samples = WalkingSamples(count: devices, prefix: prefix, cadence: cadence, rate: rate, seed: seed)
        // The timestamps as the bridge reads them (milliseconds); tick 0 at a whole millisecond.
        let rate = rate
        let reference = samples.reference(ticks: ticks) { tick in
            (Double(tick) * 1_000 / rate).rounded(.down) / 1_000
        }

        let service = try await BridgeUnderTest.start(
            path: path, arguments: ["--http-port=-1", "--detect-steps", "true"], port: port, prefix: prefix,
            label: "detector-load")
        defer { service.process.signal(SIGKILL) }

        var bursts: [RawMQTTClient] = []
        for index in 0..<publishers {
            bursts.append(
                try await RawMQTTClient.onThread("detector-load-connect") {
                    try RawMQTTClient(port: port, clientID: "detector-load-pub-\(index)")
                })
        }
        let reader = try await RawMQTTClient.onThread("detector-load-connect") {
            let client = try RawMQTTClient(port: port, clientID: "detector-load-steps")
            try client.subscribe("\(prefix)/+/steps")
            return client
        }
        let start = ((Date().timeIntervalSince1970 + 0.3) * 1_000).rounded(.down) / 1_000
        let tally = LockedValue(StepTally(start: start, rate: rate, reference: reference))
        let receiver = Task {
            try await RawMQTTClient.onThread("detector-load-steps") {
                reader.readPublishes { topic, payload in
                    let now = Date().timeIntervalSince1970
                    let device = Self.deviceIndex(inTopic: topic)
                    let steps = Self.integer(field: #""steps":"#, in: payload)
                    let detector = Self.contains(#""source":"detector""#, in: payload)
                    tally.withLock { $0.record(device: device, steps: steps, detector: detector, receivedAt: now) }
                }
            }
        }
        let before = CPUSnapshot.take(bridge: service.process.pid, broker: brokerPID)

        // Tick k is due at start + k / rate and carries every device's sample stamped with that time.
        let shares = (0..<publishers).map { index in Array(stride(from: index, to: devices, by: publishers)) }
        let clients = bursts
        @Sendable func publishAll(start: Double, ticks: Int) async throws -> (sent: Int, late: Double) {
            try await PacedBursts.publish(
                clients: clients, shares: shares, label: "detector-load", start: start, rate: rate, ticks: ticks, bytesPerPacket: 140
            ) { device, tick, stamp, packets in
                samples.appendPublishPacket(device: device, tick: tick, timestamp: stamp, to: &packets)
            }
        }
        let published = try await publishAll(start: start, ticks: ticks)
        let publishEnd = Date().timeIntervalSince1970
        let atStop = tally.withLock { $0 }
        let after = CPUSnapshot.take(bridge: service.process.pid, broker: brokerPID)
        let drainEnd = publishEnd + drain
        while Date().timeIntervalSince1970 < drainEnd {
            let complete = tally.withLock { tally in
                tally.counts.enumerated().allSatisfy { $0.element >= reference.completions[$0.offset].count }
            }
            if complete { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let drained = Date().timeIntervalSince1970 - publishEnd
        reader.stopReading()
        _ = try? await receiver.value
        reader.disconnect()
        let final = tally.withLock { $0 }

        let serviceAlive = service.process.isRunning
        await service.stop()

        // The anchor: mosquitto's own C client receiving the same stream with the bridge stopped, its CPU a sample.
        let anchorTicks = Int((anchorDuration * rate).rounded())
        let anchor = try await ReceiveAnchor.measure(port: port, filter: "\(prefix)/+/imu", label: "detector-load") { start in
            try await publishAll(start: start, ticks: anchorTicks).sent
        }

        let report = DetectorReport(
            devices: devices, rate: rate, duration: duration, warmup: warmup, cadence: cadence,
            published: published.sent, worstLateness: published.late, publishSeconds: publishEnd - start,
            reference: reference, atStop: atStop, final: final, drained: drained,
            cpu: CPUSnapshot.usage(from: before, to: after, seconds: publishEnd - start),
            serviceAlive: serviceAlive, anchorCPUPerSample: anchor, goalRate: goalRate)
        print(json ? report.json : report.text)

        for publisher in bursts { _ = try? await RawMQTTClient.onThread("detector-load-disconnect") { publisher.disconnect() } }
        return report.keptUp && report.withinGoal
    }

    /// The device index of `prefix/walk-<n>/steps` (n − 1), or nil.
    static func deviceIndex(inTopic topic: ArraySlice<UInt8>) -> Int? {
        DecimalDigits.number(after: walkMarker, in: topic).map { $0 - 1 }
    }

    private static let walkMarker = Array("/walk-".utf8)

    /// The non-negative integer after `key` in `payload`, or nil.
    static func integer(field key: String, in payload: ArraySlice<UInt8>) -> Int? {
        guard let start = index(after: Array(key.utf8), in: payload) else { return nil }
        return DecimalDigits.leadingNumber(in: payload[start...])
    }

    /// The contract timestamp of `payload` (its `"timestamp":"…"` field, wherever the encoder put it) in Unix
    /// seconds, read by the contract's codec; nil when there is none.
    static func timestamp(in payload: ArraySlice<UInt8>) -> Double? {
        guard let start = index(after: timestampKey, in: payload),
            let end = payload[start...].firstIndex(of: UInt8(ascii: "\""))
        else { return nil }
        return Timestamp.secondsSince1970(String(decoding: payload[start..<end], as: UTF8.self))
    }

    private static let timestampKey = Array(#""timestamp":""#.utf8)

    /// The index just after the first occurrence of `key` in `payload`, or nil: a plain scan, some 100 times
    /// faster than the standard library's generic `firstRange(of:)` on a 150-byte payload.
    static func index(after key: [UInt8], in payload: ArraySlice<UInt8>) -> Int? {
        guard let first = key.first, payload.count >= key.count else { return nil }
        var index = payload.startIndex
        let last = payload.endIndex - key.count
        while index <= last {
            if payload[index] == first && payload[index..<(index + key.count)].elementsEqual(key) { return index + key.count }
            index += 1
        }
        return nil
    }

    static func contains(_ text: String, in payload: ArraySlice<UInt8>) -> Bool {
        payload.firstRange(of: Array(text.utf8)) != nil
    }
}

/// The figures of one detector load run, and the verdict.
///
/// It kept up when the load tool achieved at least 95 % of the offered sample rate, the bridge's counts after the
/// drain hold every step the detector finds in the samples sent (none missing), the latency stayed bounded (p99 of
/// the last third under 1 s) and did not grow (the last third's p50 within 0.25 s of the first third's), and the
/// bridge still ran.
struct DetectorReport {
    var devices: Int
    var rate: Double
    var duration: Double
    var warmup: Double
    var cadence: Double
    var published: Int
    var worstLateness: Double
    var publishSeconds: Double
    var reference: WalkingSamples.Reference
    var atStop: StepTally
    var final: StepTally
    var drained: Double
    var cpu: CPUUsage
    var serviceAlive: Bool
    /// `mosquitto_sub`'s CPU seconds per sample on the same stream (nil: not measured).
    var anchorCPUPerSample: Double?
    /// Samples a second the bridge must handle on one core.
    var goalRate: Double

    /// The bridge's CPU seconds per sample while publishing.
    var cpuPerSample: Double? {
        cpu.bridge.map { $0 * publishSeconds / Double(max(1, published)) }
    }

    /// Samples a second one core would carry at the bridge's CPU per sample.
    var oneCoreRate: Double? { cpuPerSample.map { 1 / max(1e-12, $0) } }

    /// The bridge kept up and one core would carry the goal's rate.
    var withinGoal: Bool { keptUp && (oneCoreRate ?? 0) >= goalRate }

    var offered: Double { Double(devices) * rate }
    var achieved: Double { Double(published) / max(1e-9, publishSeconds) }
    var measured: Range<Int> { Int(warmup.rounded(.up))..<Int(duration.rounded(.down)) }
    var measuredSeconds: Double { Double(max(1, measured.count)) }
    var stepsPerDevice: Double { Double(final.steps(in: measured)) / measuredSeconds / Double(devices) }
    /// Steps per device per second the reference detector completes within the measured seconds.
    var referencePerDevice: Double {
        let first = Int(Double(measured.lowerBound) * rate)
        let end = Int(Double(measured.upperBound) * rate)
        let steps = reference.completions.reduce(0) { $0 + $1.filter { $0 >= first && $0 < end }.count }
        return Double(steps) / measuredSeconds / Double(devices)
    }
    var latencies: [Double] { final.latencies(in: measured) }
    var thirds: (first: [Double], last: [Double]) {
        let third = max(1, measured.count / 3)
        return (
            final.latencies(in: measured.lowerBound..<(measured.lowerBound + third)),
            final.latencies(in: (measured.upperBound - third)..<measured.upperBound)
        )
    }
    var counted: Int { final.counts.reduce(0, +) }
    var missing: Int { max(0, reference.totalSteps - counted) }
    var devicesShort: Int {
        final.counts.enumerated().filter { $0.element < reference.completions[$0.offset].count }.count
    }

    /// Why it did not keep up (empty: it did).
    var reasons: [String] {
        let (first, last) = thirds
        var reasons: [String] = []
        if !serviceAlive { reasons.append("the bridge exited") }
        if achieved < 0.95 * offered { reasons.append("the load tool offered only \(number(achieved)) samples/s") }
        if missing > 0 {
            reasons.append("steps missing: \(missing) of \(reference.totalSteps) after the drain, \(devicesShort) devices short")
        }
        if !(last.percentile(0.99) < 1) { reasons.append("latency p99 of the last third \(ms(last.percentile(0.99))) ≥ 1 s") }
        if !(last.percentile(0.5) <= first.percentile(0.5) + 0.25) {
            reasons.append("latency growing: p50 \(ms(first.percentile(0.5))) in the first third, \(ms(last.percentile(0.5))) in the last")
        }
        return reasons
    }

    var keptUp: Bool { reasons.isEmpty }

    private func ms(_ seconds: Double) -> String { FigureText.milliseconds(seconds) }
    private func number(_ value: Double) -> String { String(format: "%.0f", value) }

    var text: String {
        let (first, last) = thirds
        let processedStop = Double(atStop.samplesProcessed)
        let processedFinal = Double(final.samplesProcessed)
        var lines = [
            "detector load: \(devices) walking devices × \(number(rate)) Hz for \(number(duration)) s, cadence \(String(format: "%.2f", cadence)) steps/s (figures from second \(measured.lowerBound) to \(measured.upperBound))",
            "IMU samples/s: offered \(number(offered)), achieved \(number(achieved)) (\(published) published at QoS 0; worst publisher lateness \(ms(worstLateness)))",
            "samples the bridge certainly processed (up to each device's last counted step): \(number(processedStop / max(1e-9, publishSeconds)))/s while publishing (\(String(format: "%.1f", 100 * processedStop / Double(max(1, published)))) %), \(String(format: "%.1f", 100 * processedFinal / Double(max(1, published)))) % after the drain",
            "steps: \(String(format: "%.2f", stepsPerDevice)) per device per second (reference detector \(String(format: "%.2f", referencePerDevice)), cadence \(String(format: "%.2f", cadence))); \(counted)/\(reference.totalSteps) counted after a \(String(format: "%.1f", drained)) s drain, \(final.devicesHeard)/\(devices) devices heard; \(final.messages) steps messages (\(final.ignored) not the detector's, \(final.unexpected) beyond the reference)",
            "steps latency (receive − timestamp of the sample that completed the step): p50 \(ms(latencies.percentile(0.5))), p99 \(ms(latencies.percentile(0.99))), max \(ms(latencies.last ?? .nan)); first third p50 \(ms(first.percentile(0.5))), last third p50 \(ms(last.percentile(0.5))) p99 \(ms(last.percentile(0.99)))",
            "CPU while publishing: \(cpu.text)",
            capacityText,
        ]
        lines.append(
            "per second (steps messages, p50/p99 latency): "
                + (0..<Int(duration.rounded(.up) + drained.rounded(.up))).map { second in
                    let values = (final.seconds[second]?.latencies ?? []).sorted()
                    return "\(second):\(final.seconds[second]?.messages ?? 0) \(ms(values.percentile(0.5)))/\(ms(values.percentile(0.99)))"
                }.joined(separator: ", "))
        lines.append(keptUp ? "KEPT UP" : "DID NOT KEEP UP: " + reasons.joined(separator: "; "))
        lines.append(goalText)
        return lines.joined(separator: "\n")
    }

    private func microseconds(_ seconds: Double?) -> String { seconds.map { String(format: "%.2f µs", $0 * 1e6) } ?? "n/a" }

    /// The bridge's CPU per sample, what one core would carry at it, and the anchor's figures.
    var capacityText: String {
        var text = "CPU per sample: bridge \(microseconds(cpuPerSample))"
        if let oneCoreRate { text += " (one core would carry \(number(oneCoreRate)) samples/s)" }
        text += "; mosquitto_sub receiving the same stream \(microseconds(anchorCPUPerSample))"
        if let anchorCPUPerSample {
            text += " (one core would carry \(number(1 / max(1e-12, anchorCPUPerSample))) samples/s)"
            if let cpuPerSample { text += ", the bridge \(String(format: "%.2f", cpuPerSample / max(1e-12, anchorCPUPerSample)))× the anchor" }
        }
        return text
    }

    var goalText: String {
        let goal = "\(number(goalRate)) samples/s on one core"
        guard keptUp else { return "GOAL MISSED: \(goal) (did not keep up)" }
        guard let oneCoreRate else { return "GOAL NOT CHECKED: \(goal) (the bridge's CPU could not be read)" }
        return oneCoreRate >= goalRate ? "GOAL MET: \(goal)" : "GOAL MISSED: \(goal); one core would carry \(number(oneCoreRate))"
    }

    var json: String {
        let fields: [(String, String)] =
            [
                ("devices", "\(devices)"), ("rate", "\(rate)"), ("duration", "\(duration)"),
                ("offered", number(offered)), ("achieved", number(achieved)),
                ("processedAtStop", "\(atStop.samplesProcessed)"), ("processedFinal", "\(final.samplesProcessed)"),
                ("stepsPerDevice", String(format: "%.3f", stepsPerDevice)),
                ("referencePerDevice", String(format: "%.3f", referencePerDevice)),
                ("counted", "\(counted)"), ("expected", "\(reference.totalSteps)"),
                ("latencyP50", String(format: "%.4f", latencies.percentile(0.5))),
                ("latencyP99", String(format: "%.4f", latencies.percentile(0.99))),
            ] + cpu.jsonFields + [
                ("cpuPerSample", cpuPerSample.map { String(format: "%.9f", $0) } ?? "null"),
                ("anchorCPUPerSample", anchorCPUPerSample.map { String(format: "%.9f", $0) } ?? "null"),
                ("goalRate", number(goalRate)), ("keptUp", "\(keptUp)"), ("withinGoal", "\(withinGoal)"),
            ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
