import ArgumentParser
import Bus
import BusTesting
import Foundation
import StepCompassContract

/// `stepcompass-buslab bridge-load`: N phones push Sensor Logger batches over HTTP to the real `stepcompass-bridge`
/// (step detection off), and a subscriber of the private broker counts the `imu` messages that come out.
struct BridgeLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridge-load",
        abstract: "Load the bridge's Sensor Logger HTTP push with N phones and check that every sample comes out on the bus.",
        discussion: """
            Starts a private mosquitto on a free port and stepcompass-bridge --detect-steps false with its HTTP push \
            on another free port. Each of --phones phones keeps one HTTP/1.1 connection and POSTs \
            /sensor-logger?device=phone-N every --batch / --rate seconds, a body of --batch samples per stream \
            (even phones: totalacceleration, magnetometer, gyroscope; odd phones: accelerometer and gravity instead \
            of totalacceleration), the phones' schedules spread evenly over the period. A subscriber of the broker \
            counts stepcompass/+/imu per phone. After the last answer it waits for the bridge's reorder delay to \
            flush (up to --drain seconds). Reports requests/s, HTTP latency (from when each request was due) p50/p99, \
            samples/s, lost samples (accepted by the bridge, never on the bus), and CPU of the bridge, the broker and \
            the load tool. Exit code 3 when samples were lost, requests failed, or the bridge fell behind.
            """)

    @Option(help: "Number of phones.") var phones = 200
    @Option(help: "Samples per second per stream of each phone.") var rate = 100.0
    @Option(help: "Samples per stream in one push body (a phone posts every batch / rate seconds).") var batch = 100
    @Option(help: "Seconds of load.") var duration = 20.0
    @Option(help: "Seconds at the start left out of the latency figures.") var warmup = 2.0
    @Option(help: "Most seconds to wait after the last answer for every sample to come out (the reorder delay is 1 s).")
    var drain = 15.0
    @Option(help: "Load tool threads sending the requests (each owns a share of the phones).") var threads = 2
    @Option(help: "Path of stepcompass-bridge (default: next to this executable).") var bridge: String?
    @Flag(help: "Print one JSON line instead of text.") var json = false

    var period: Double { Double(batch) / rate }

    func validate() throws {
        guard phones >= 1, phones <= 10_000 else { throw ValidationError("--phones must be 1...10000") }
        guard rate > 0, rate <= 1_000 else { throw ValidationError("--rate must be in (0, 1000] Hz") }
        guard batch >= 1, batch <= 10_000 else { throw ValidationError("--batch must be 1...10000") }
        guard duration >= period, duration > warmup, warmup >= 0 else {
            throw ValidationError("--duration must be at least one period (batch / rate) and exceed --warmup")
        }
        guard threads >= 1, threads <= 16 else { throw ValidationError("--threads must be 1...16") }
    }

    func run() async throws {
        let path = BridgeUnderTest.executablePath(bridge)
        try await PrivateBroker.measure(configuration: "max_queued_messages 1000000") { broker in
            try await measure(port: broker.port, brokerPID: ProcessCPU.pid(commandLineContaining: broker.directory.path), path: path)
        }
    }

    private func measure(port: Int, brokerPID: Int32?, path: String) async throws -> Bool {
        let prefix = "stepcompass"
        let httpPort = try MosquittoBrokerProcess.freePort()
        let reader = try await RawMQTTClient.onThread("bridge-load-connect") {
            let client = try RawMQTTClient(port: port, clientID: "bridge-load-imu")
            try client.subscribe("\(prefix)/+/imu")
            return client
        }
        let service = try await BridgeUnderTest.start(
            path: path, arguments: ["--http-port", "\(httpPort)", "--http-host", "127.0.0.1", "--detect-steps", "false"],
            port: port, prefix: prefix, label: "bridge-load")
        defer { service.process.signal(SIGKILL) }

        let requests = max(1, Int((duration / period).rounded(.down)))
        // Phones start recording one period before their first push, which is due half a second from now.
        let firstDue = Date().timeIntervalSince1970 + 0.5
        let start = firstDue - period
        let bodies = SensorLoggerLoadBodies(
            rate: rate, batch: batch, port: httpPort, startNanoseconds: Int64((start * 1_000).rounded(.down)) * 1_000_000)
        let tally = LockedValue(IMUTally(start: firstDue, phones: phones))
        let receiver = Task {
            try await RawMQTTClient.onThread("bridge-load-imu") {
                reader.readPublishes { topic, payload in
                    let now = Date().timeIntervalSince1970
                    let phone = Self.phoneIndex(inTopic: topic)
                    let timestamp = DetectorLoad.timestamp(in: payload)
                    tally.withLock { $0.record(phone: phone, timestamp: timestamp, receivedAt: now) }
                }
            }
        }

        let workers = (0..<threads).map { index in
            HTTPLoadWorker(
                port: httpPort, phones: Array(stride(from: index, to: phones, by: threads)), phoneCount: phones,
                start: start, period: period, requests: requests, bodies: bodies)
        }
        for worker in workers { try await RawMQTTClient.onThread("bridge-load-connect") { try worker.connect() } }
        let before = CPUSnapshot.take(bridge: service.process.pid, broker: brokerPID)
        let deadline = start + duration + period + 30
        let results = try await withThrowingTaskGroup(of: HTTPLoadWorker.Result.self) { group in
            for (index, worker) in workers.enumerated() {
                group.addTask { try await RawMQTTClient.onThread("bridge-load-http-\(index)") { worker.run(deadline: deadline) } }
            }
            var all: [HTTPLoadWorker.Result] = []
            for try await result in group { all.append(result) }
            return all
        }
        let answeredEnd = Date().timeIntervalSince1970
        let after = CPUSnapshot.take(bridge: service.process.pid, broker: brokerPID)
        let atStop = tally.withLock { $0.received }
        let accepted = results.reduce(0) { $0 + $1.samplesAccepted }

        // Wait for the reorder buffers to flush (the bridge flushes a phone idle for its reorder delay).
        var lastCount = -1
        var lastChange = Date().timeIntervalSince1970
        while true {
            let now = Date().timeIntervalSince1970
            let count = tally.withLock { $0.received }
            if count >= accepted || now - answeredEnd >= drain { break }
            if count != lastCount {
                lastCount = count
                lastChange = now
            } else if now - lastChange > 4, now - answeredEnd > 3 {
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let drained = Date().timeIntervalSince1970 - answeredEnd
        reader.stopReading()
        _ = try? await receiver.value
        reader.disconnect()
        for worker in workers { worker.close() }
        let final = tally.withLock { $0 }

        let report = BridgeLoadReport(
            phones: phones, rate: rate, batch: batch, duration: duration, warmup: warmup, requestsPerPhone: requests,
            results: results, loadSeconds: answeredEnd - firstDue, receivedAtStop: atStop, final: final, drained: drained,
            cpu: CPUSnapshot.usage(from: before, to: after, seconds: answeredEnd - firstDue),
            serviceAlive: service.process.isRunning)
        print(json ? report.json : report.text)
        await service.stop()
        return report.keptUp
    }

    /// The phone index of `prefix/phone-<n>/imu`, or nil.
    static func phoneIndex(inTopic topic: ArraySlice<UInt8>) -> Int? { DecimalDigits.number(after: phoneMarker, in: topic) }

    private static let phoneMarker = Array("/phone-".utf8)
}

/// The `imu` messages the bridge load's subscriber received: per phone, and their latency behind the sample
/// time (which includes the push period and the bridge's reorder delay).
struct IMUTally: Sendable {
    let start: Double
    var received = 0
    var foreign = 0
    var perPhone: [Int]
    var perSecond: [Int: Int] = [:]
    var latencies: [Double] = []

    init(start: Double, phones: Int) {
        self.start = start
        perPhone = Array(repeating: 0, count: phones)
    }

    mutating func record(phone: Int?, timestamp: Double?, receivedAt now: Double) {
        guard let phone, phone >= 0, phone < perPhone.count else {
            foreign += 1
            return
        }
        received += 1
        perPhone[phone] += 1
        perSecond[Int((now - start).rounded(.down)), default: 0] += 1
        if let timestamp { latencies.append(now - timestamp) }
    }
}

/// The figures of one bridge load run, and the verdict: no sample lost, no request failed, and the bridge kept
/// pace (HTTP latency p99 after the warm-up under one push period, so no phone fell behind its schedule).
struct BridgeLoadReport {
    var phones: Int
    var rate: Double
    var batch: Int
    var duration: Double
    var warmup: Double
    var requestsPerPhone: Int
    var results: [HTTPLoadWorker.Result]
    var loadSeconds: Double
    var receivedAtStop: Int
    var final: IMUTally
    var drained: Double
    var cpu: CPUUsage
    var serviceAlive: Bool

    var period: Double { Double(batch) / rate }
    var sent: Int { results.reduce(0) { $0 + $1.sent } }
    var ok: Int { results.reduce(0) { $0 + $1.ok } }
    var accepted: Int { results.reduce(0) { $0 + $1.samplesAccepted } }
    var lost: Int { accepted - final.received }
    var failures: [String: Int] {
        results.reduce(into: [:]) { all, result in all.merge(result.failures, uniquingKeysWith: +) }
    }
    var failed: Int { failures.values.reduce(0, +) }
    var offeredRequests: Double { Double(phones) / period }
    var achievedRequests: Double { Double(ok) / max(1e-9, loadSeconds) }
    var latencies: [Double] {
        results.flatMap { $0.latencies.filter { Double($0.second) >= warmup }.map(\.latency) }.sorted()
    }
    var thirds: (first: [Double], last: [Double]) {
        let all = results.flatMap { $0.latencies.filter { Double($0.second) >= warmup } }.sorted { $0.second < $1.second }
        let third = max(1, all.count / 3)
        return (all.prefix(third).map(\.latency).sorted(), all.suffix(third).map(\.latency).sorted())
    }
    var worstSendDelay: Double { results.map(\.worstSendDelay).max() ?? 0 }
    var bytesSent: Int { results.reduce(0) { $0 + $1.bytesSent } }

    var reasons: [String] {
        var reasons: [String] = []
        let (first, last) = thirds
        if !serviceAlive { reasons.append("the bridge exited") }
        if lost != 0 { reasons.append("\(lost) samples lost (\(accepted) accepted, \(final.received) on the bus)") }
        if failed > 0 { reasons.append("\(failed) requests failed: \(failures.map { "\($0.key) × \($0.value)" }.sorted().joined(separator: ", "))") }
        if !(latencies.percentile(0.99) < period) {
            reasons.append("HTTP latency p99 \(ms(latencies.percentile(0.99))) ≥ the push period \(ms(period)): phones fell behind")
        }
        if !(last.percentile(0.5) <= first.percentile(0.5) + 0.25) {
            reasons.append("HTTP latency growing: p50 \(ms(first.percentile(0.5))) in the first third, \(ms(last.percentile(0.5))) in the last")
        }
        return reasons
    }

    var keptUp: Bool { reasons.isEmpty }

    private func ms(_ seconds: Double) -> String { FigureText.milliseconds(seconds) }
    private func number(_ value: Double) -> String { String(format: "%.0f", value) }

    var text: String {
        let imu = final.latencies.sorted()
        let (first, last) = thirds
        var lines = [
            "bridge load: \(phones) phones × \(number(rate)) Hz, \(batch) samples per stream per push (every \(String(format: "%.2f", period)) s), \(requestsPerPhone) pushes each over \(String(format: "%.1f", loadSeconds)) s, step detection off",
            "requests/s (from the first push due to the last answer): offered \(String(format: "%.1f", offeredRequests)), answered 200 \(String(format: "%.1f", achievedRequests)) (\(ok)/\(sent) sent; \(failed) failed\(failed > 0 ? ": " + failures.map { "\($0.key) × \($0.value)" }.sorted().joined(separator: ", ") : "")); \(String(format: "%.1f", Double(bytesSent) / max(1e-9, loadSeconds) / 1e6)) MB/s of bodies; worst send behind schedule \(ms(worstSendDelay))",
            "HTTP latency (answer − when due, after \(number(warmup)) s): p50 \(ms(latencies.percentile(0.5))), p99 \(ms(latencies.percentile(0.99))), max \(ms(latencies.last ?? .nan)); first third p50 \(ms(first.percentile(0.5))), last third p50 \(ms(last.percentile(0.5)))",
            "samples/s (IMU): offered \(number(Double(phones) * rate)), accepted \(number(Double(accepted) / max(1e-9, loadSeconds))), on the bus \(number(Double(receivedAtStop) / max(1e-9, loadSeconds))) by the last answer",
            "lost: \(lost) (\(accepted) samples accepted, \(final.received) imu messages received after a \(String(format: "%.1f", drained)) s drain; \(final.perPhone.filter { $0 > 0 }.count)/\(phones) phones heard); imu latency behind sample time p50 \(ms(imu.percentile(0.5))), p99 \(ms(imu.percentile(0.99))) (includes the push period and the 1 s reorder delay)",
            "CPU while pushing: \(cpu.text)",
        ]
        if let body = results.compactMap(\.firstFailureBody).first { lines.append("first failure's body: \(body)") }
        lines.append(
            "imu messages per second: "
                + (0..<Int((loadSeconds + drained).rounded(.up))).map { "\($0):\(final.perSecond[$0] ?? 0)" }.joined(separator: ", "))
        lines.append(keptUp ? "KEPT UP (none lost)" : "DID NOT KEEP UP: " + reasons.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }

    var json: String {
        let fields: [(String, String)] =
            [
                ("phones", "\(phones)"), ("rate", "\(rate)"), ("batch", "\(batch)"), ("duration", "\(duration)"),
                ("requestsSent", "\(sent)"), ("requestsOK", "\(ok)"), ("requestsPerSecond", String(format: "%.2f", achievedRequests)),
                ("latencyP50", String(format: "%.4f", latencies.percentile(0.5))),
                ("latencyP99", String(format: "%.4f", latencies.percentile(0.99))),
                ("samplesAccepted", "\(accepted)"), ("samplesReceived", "\(final.received)"), ("lost", "\(lost)"),
                ("samplesPerSecond", number(Double(accepted) / max(1e-9, loadSeconds))),
            ] + cpu.jsonFields + [("keptUp", "\(keptUp)")]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
