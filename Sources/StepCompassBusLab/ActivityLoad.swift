import ArgumentParser
import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import StepCompassContract

/// `stepcompass-buslab activity-load`: drives the real `stepcompass-activity` with N devices' cumulative step
/// counts at R Hz through a private mosquitto, then checks that every step was stored.
struct ActivityLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity-load",
        abstract: "Load the activity service with N devices × R Hz of cumulative step counts and check every step was stored.",
        discussion: """
            Starts a private mosquitto on a free port and stepcompass-activity against it (SQLite in a temporary \
            --data-dir; PostgreSQL with --database-url, or in a throwaway server with --postgres), publishes each \
            device's cumulative count on stepcompass/<device>/steps (QoS 0, stamped with the wall clock; device n \
            walks 1 + n mod 3 steps per message) as ready-made MQTT packets from --publishers clients, and reads \
            stepcompass/+/activity back: its latency is the arrival minus the timestamp of the last count it \
            reflects (the service publishes a device's activity at most once a second). After the drain it asks \
            stepcompass/activity/history for every device's days and compares their sum with the steps sent. \
            Reports messages/s offered and achieved, counts reflected in the activity messages, stored/sent, \
            latency p50/p99, CPU of the service, the broker (and PostgreSQL when it is the tool's own), the load \
            tool. Exit code 3 when it did not keep up.
            """)

    @Option(help: "Number of simulated devices.") var devices = 10_000
    @Option(help: "Step messages per second per device.") var rate = 1.0
    @Option(help: "Seconds of load.") var duration = 60.0
    @Option(help: "Seconds at the start left out of the latency figures.") var warmup = 5.0
    @Option(help: "Most seconds to wait after the last message for every device's activity to catch up.") var drain = 30.0
    @Option(help: "Publishing clients (each publishes a share of the devices).") var publishers = 2
    @Option(help: "Path of stepcompass-activity (default: next to this executable).") var service: String?
    @Option(help: "Keep the history in PostgreSQL at this URL instead of SQLite.") var databaseURL: String?
    @Flag(help: "Keep the history in a throwaway PostgreSQL server (initdb in /tmp).") var postgres = false
    @Flag(help: "Print one JSON line instead of text.") var json = false

    func validate() throws {
        guard devices >= 1, devices <= 200_000 else { throw ValidationError("--devices must be 1...200000") }
        guard rate > 0, rate <= 100 else { throw ValidationError("--rate must be in (0, 100] Hz") }
        guard duration > warmup + 1, warmup >= 0 else { throw ValidationError("--duration must exceed --warmup by 1 s") }
        guard publishers >= 1, publishers <= 64 else { throw ValidationError("--publishers must be 1...64") }
    }

    func run() async throws {
        let path = service ?? BridgeUnderTest.executablePath(nil).replacingOccurrences(of: "stepcompass-bridge", with: "stepcompass-activity")
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError("no stepcompass-activity at \(path): build it or pass --service")
        }
        var server: PostgresServerProcess?
        var url = databaseURL
        if url == nil, postgres {
            server = try await PostgresServerProcess.launch()
            url = server?.url
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-activity-load-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let broker: MosquittoBrokerProcess
        do {
            broker = try await MosquittoBrokerProcess.launch(configuration: "max_queued_messages 1000000")
        } catch {
            await server?.stop()
            throw error
        }
        var passed = false
        var failure: (any Error)?
        do {
            passed = try await measure(
                port: broker.port, brokerPID: ProcessCPU.pid(commandLineContaining: broker.directory.path), path: path,
                folder: folder, url: url, postgresPID: server?.serverPID)
        } catch {
            failure = error
        }
        await broker.shutdown()
        await server?.stop()
        try? FileManager.default.removeItem(at: folder)
        if let failure { throw failure }
        if !passed { throw ExitCode(3) }
    }

    private func measure(port: Int, brokerPID: Int32?, path: String, folder: URL, url: String?, postgresPID: Int32?) async throws -> Bool {
        let prefix = "stepcompass"
        let run = String(UUID().uuidString.prefix(6)).lowercased()
        let devicePrefix = "al\(run)-"
        let ticks = Int((duration * rate).rounded())
        let rate = rate
        let devices = devices
        let increments = (0..<devices).map { Int64(1 + $0 % 3) }
        let sent = increments.reduce(0) { $0 + $1 * Int64(ticks) }
        let topics = (0..<devices).map { Array("\(prefix)/\(devicePrefix)\($0)/steps".utf8) }

        var logger = Logger(label: "activity-load")
        logger.logLevel = .warning
        let probe = try MosquittoBus(
            configuration: MosquittoConfiguration(host: "127.0.0.1", port: port, clientID: "activity-load-probe", cleanStart: true),
            logger: logger)
        try await probe.connect()
        let process = try await Self.startService(
            path: path, port: port, prefix: prefix, folder: folder, url: url, probe: probe)
        defer { process.signal(SIGKILL) }

        var bursts: [RawMQTTClient] = []
        for index in 0..<publishers {
            bursts.append(
                try await RawMQTTClient.onThread("activity-load-connect") {
                    try RawMQTTClient(port: port, clientID: "activity-load-pub-\(index)")
                })
        }
        let reader = try await RawMQTTClient.onThread("activity-load-connect") {
            let client = try RawMQTTClient(port: port, clientID: "activity-load-activity")
            try client.subscribe("\(prefix)/+/activity")
            return client
        }
        let start = ((Date().timeIntervalSince1970 + 0.3) * 1_000).rounded(.down) / 1_000
        let tally = LockedValue(ActivityTally(devices: devices))
        let marker = Array("/\(devicePrefix)".utf8)
        let receiver = Task {
            try await RawMQTTClient.onThread("activity-load-activity") {
                reader.readPublishes { topic, payload in
                    let now = Date().timeIntervalSince1970
                    guard let device = Self.index(after: marker, in: topic),
                        let today = DetectorLoad.integer(field: #""today":"#, in: payload),
                        let stamp = DetectorLoad.timestamp(in: payload)
                    else { return }
                    tally.withLock {
                        $0.record(device: device, today: Int64(today), latency: now - stamp, second: Int((stamp - start + 0.000_5).rounded(.down)))
                    }
                }
            }
        }
        let before = CPUSnapshot.take(bridge: process.pid, broker: brokerPID)
        let postgresBefore = postgresPID.flatMap(Self.treeCPU(pid:))

        let shares = (0..<publishers).map { index in Array(stride(from: index, to: devices, by: publishers)) }
        let published = try await PacedBursts.publish(
            clients: bursts, shares: shares, label: "activity-load", start: start, rate: rate, ticks: ticks, bytesPerPacket: 110
        ) { device, tick, stamp, packets in
            let payload = Array(#"{"steps":\#(Int64(tick + 1) * increments[device]),"timestamp":""#.utf8) + stamp + Array(#""}"#.utf8)
            RawMQTTClient.appendPublish(topic: topics[device], payload: payload, to: &packets)
        }
        let publishEnd = Date().timeIntervalSince1970
        let after = CPUSnapshot.take(bridge: process.pid, broker: brokerPID)
        let postgresAfter = postgresPID.flatMap(Self.treeCPU(pid:))
        let atStop = tally.withLock { $0 }
        let finals = increments.map { $0 * Int64(ticks) }
        let drainEnd = publishEnd + drain
        while Date().timeIntervalSince1970 < drainEnd {
            if tally.withLock({ $0.caughtUp(finals) == devices }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let drained = Date().timeIntervalSince1970 - publishEnd
        reader.stopReading()
        _ = try? await receiver.value
        reader.disconnect()
        let final = tally.withLock { $0 }

        let verifyStart = Date().timeIntervalSince1970
        let stored = try await Self.storedSteps(
            port: port, prefix: prefix, devicePrefix: devicePrefix, devices: devices, run: run,
            from: start - 2 * 86_400, to: Date().timeIntervalSince1970 + 2 * 86_400)
        let verifySeconds = Date().timeIntervalSince1970 - verifyStart

        let report = ActivityLoadReport(
            devices: devices, rate: rate, duration: duration, warmup: warmup, ticks: ticks, backend: url == nil ? "SQLite" : "PostgreSQL",
            published: published.sent, worstLateness: published.late, publishSeconds: publishEnd - start,
            sent: sent, finals: finals, increments: increments, atStop: atStop, final: final, drained: drained,
            stored: stored, verifySeconds: verifySeconds,
            cpu: CPUSnapshot.usage(from: before, to: after, seconds: publishEnd - start),
            postgresCPU: postgresAfter.flatMap { a in postgresBefore.map { (a - $0) / max(1e-9, publishEnd - start) } },
            serviceAlive: process.isRunning)
        print(json ? report.json : report.text)
        if !process.isRunning { print("service output:\n\(process.output.suffix(4_000))") }

        for publisher in bursts { _ = try? await RawMQTTClient.onThread("activity-load-disconnect") { publisher.disconnect() } }
        process.signal(SIGTERM)
        if await process.waitForExit(timeout: .seconds(10)) == nil { process.signal(SIGKILL) }
        await probe.disconnect()
        return report.keptUp
    }

    /// Starts stepcompass-activity and waits (up to 60 s) for its retained `online` status.
    static func startService(path: String, port: Int, prefix: String, folder: URL, url: String?, probe: MosquittoBus) async throws -> ChildProcess {
        let status = try await probe.subscribe(to: try TopicFilter("\(prefix)/services/activity/status"), qos: .atLeastOnce)
        let process = try await ChildProcess(
            executable: path, arguments: ["--data-dir", folder.path],
            environment: [
                "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(port)", "MQTT_CLIENT_ID": "activity-load-service",
                "TOPIC_PREFIX": prefix, "LOG_LEVEL": "warning", "DATABASE_URL": url ?? "",
            ])
        let found = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await message in status where String(decoding: message.payload, as: UTF8.self).contains("\"online\"") {
                    return true
                }
                return false
            }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(60)
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
            throw ValidationError("stepcompass-activity did not come online within 60 s:\n\(process.output)")
        }
        return process
    }

    /// Asks the service for every device's days and returns the sum of each device's buckets (-1: no reply).
    static func storedSteps(
        port: Int, prefix: String, devicePrefix: String, devices: Int, run: String, from: Double, to: Double
    ) async throws -> [Int64] {
        let replyTopic = "buslab/activity-load/\(run)/replies"
        let client = try await RawMQTTClient.onThread("activity-load-history") {
            let client = try RawMQTTClient(port: port, clientID: "activity-load-history")
            try client.subscribe(replyTopic)
            return client
        }
        let sums = LockedValue((values: [Int64](repeating: -1, count: devices), replies: 0))
        let reading = Task {
            try await RawMQTTClient.onThread("activity-load-replies") {
                client.readPublishes { _, payload in
                    guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
                        let correlation = object["correlationId"] as? String, let index = Int(correlation),
                        index >= 0, index < devices
                    else { return }
                    let buckets = object["buckets"] as? [[String: Any]] ?? []
                    let sum = buckets.reduce(Int64(0)) { $0 + (($1["steps"] as? NSNumber)?.int64Value ?? 0) }
                    sums.withLock {
                        if $0.values[index] < 0 { $0.replies += 1 }
                        $0.values[index] = object["error"] == nil ? sum : -2
                    }
                }
            }
        }
        let fromText = Timestamp.format(secondsSince1970: from)
        let toText = Timestamp.format(secondsSince1970: to)
        let topic = Array("\(prefix)/activity/history".utf8)
        // In slices, so the broker's and the service's queues stay modest.
        for slice in stride(from: 0, to: devices, by: 1_000) {
            var packets = [UInt8]()
            for index in slice..<min(devices, slice + 1_000) {
                let payload =
                    #"{"device":"\#(devicePrefix)\#(index)","from":"\#(fromText)","to":"\#(toText)","granularity":"day","replyTo":"\#(replyTopic)","correlationId":"\#(index)"}"#
                RawMQTTClient.appendPublish(topic: topic, payload: Array(payload.utf8), to: &packets)
            }
            let requests = packets
            try await RawMQTTClient.onThread("activity-load-requests") { try client.send(requests) }
            let target = min(devices, slice + 1_000)
            let deadline = Date().timeIntervalSince1970 + 60
            while sums.withLock({ $0.replies }) < target - 200, Date().timeIntervalSince1970 < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let deadline = Date().timeIntervalSince1970 + 60
        while sums.withLock({ $0.replies }) < devices, Date().timeIntervalSince1970 < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        client.stopReading()
        _ = try? await reading.value
        client.disconnect()
        return sums.withLock { $0.values }
    }

    /// The number right after `marker` in `bytes`, or nil.
    static func index(after marker: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard let range = bytes.firstRange(of: marker) else { return nil }
        var value = 0
        var digits = 0
        for byte in bytes[range.upperBound...] {
            guard byte >= 0x30, byte <= 0x39 else { break }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// CPU seconds of a process and all its descendants (a PostgreSQL server, started through `runuser` as root,
    /// and its backends).
    static func treeCPU(pid: Int32) -> Double? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        var children: [Int32: [Int32]] = [:]
        for entry in entries {
            guard let child = Int32(entry), let text = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { children[parent, default: []].append(child) }
        }
        guard var total = ProcessCPU.seconds(pid: pid) else { return nil }
        var pending = children[pid] ?? []
        while let next = pending.popLast() {
            total += ProcessCPU.seconds(pid: next) ?? 0
            pending += children[next] ?? []
        }
        return total
    }
}

/// The activity messages received: each device's last `today`, latencies per second of the step timestamps.
struct ActivityTally {
    var today: [Int64]
    var messages = 0
    var seconds: [Int: [Double]] = [:]

    init(devices: Int) {
        today = [Int64](repeating: 0, count: devices)
    }

    mutating func record(device: Int, today value: Int64, latency: Double, second: Int) {
        guard device < today.count else { return }
        messages += 1
        today[device] = max(today[device], value)
        seconds[second, default: []].append(latency)
    }

    /// Devices whose last activity shows their final count.
    func caughtUp(_ finals: [Int64]) -> Int {
        zip(today, finals).filter { $0 >= $1 }.count
    }

    func latencies(in range: Range<Int>) -> [Double] {
        range.flatMap { seconds[$0] ?? [] }.sorted()
    }
}

/// The figures of one activity load run, and the verdict.
///
/// It kept up when the load tool achieved at least 95 % of the offered rate, the history holds exactly the steps
/// sent for every device, every device's activity showed its final count within the drain, the activity latency
/// stayed bounded (p99 of the last third under 2 s: the service holds a device's message up to 1 s) and did not
/// grow (the last third's p50 within 0.5 s of the first third's), and the service still ran.
struct ActivityLoadReport {
    var devices: Int
    var rate: Double
    var duration: Double
    var warmup: Double
    var ticks: Int
    var backend: String
    var published: Int
    var worstLateness: Double
    var publishSeconds: Double
    var sent: Int64
    var finals: [Int64]
    var increments: [Int64]
    var atStop: ActivityTally
    var final: ActivityTally
    var drained: Double
    var stored: [Int64]
    var verifySeconds: Double
    var cpu: CPUUsage
    var postgresCPU: Double?
    var serviceAlive: Bool

    var offered: Double { Double(devices) * rate }
    /// The publishing time: the last tick is due (ticks − 1) / rate after the first, and lasts 1 / rate.
    var span: Double { max(publishSeconds, Double(ticks) / rate) }
    var achieved: Double { Double(published) / max(1e-9, span) }
    var measured: Range<Int> { Int(warmup.rounded(.up))..<Int(duration.rounded(.down)) }
    var latencies: [Double] { final.latencies(in: measured) }
    var thirds: (first: [Double], last: [Double]) {
        let third = max(1, measured.count / 3)
        return (
            final.latencies(in: measured.lowerBound..<(measured.lowerBound + third)),
            final.latencies(in: (measured.upperBound - third)..<measured.upperBound)
        )
    }
    var storedTotal: Int64 { stored.reduce(0) { $0 + max(0, $1) } }
    var unanswered: Int { stored.filter { $0 == -1 }.count }
    var failedReplies: Int { stored.filter { $0 == -2 }.count }
    var devicesWrong: Int { zip(stored, finals).filter { $0 != $1 }.count }
    /// Step messages the activity messages showed applied by the end of publishing, per second.
    var reflectedRate: Double {
        let applied = zip(atStop.today, increments).reduce(0) { $0 + Int($1.0 / $1.1) }
        return Double(applied) / max(1e-9, span)
    }

    var reasons: [String] {
        let (first, last) = thirds
        var reasons: [String] = []
        if !serviceAlive { reasons.append("the service exited") }
        if achieved < 0.95 * offered { reasons.append("the load tool offered only \(number(achieved)) messages/s") }
        if devicesWrong > 0 || storedTotal != sent {
            reasons.append(
                "history: \(storedTotal) of \(sent) steps stored, \(devicesWrong) devices wrong (\(unanswered) unanswered, \(failedReplies) error replies)"
            )
        }
        let behind = devices - final.caughtUp(finals)
        if behind > 0 { reasons.append("\(behind) devices' activity never showed their final count") }
        if !(last.percentile(0.99) < 2) { reasons.append("activity latency p99 of the last third \(ms(last.percentile(0.99))) ≥ 2 s") }
        if !(last.percentile(0.5) <= first.percentile(0.5) + 0.5) {
            reasons.append("latency growing: p50 \(ms(first.percentile(0.5))) in the first third, \(ms(last.percentile(0.5))) in the last")
        }
        return reasons
    }

    var keptUp: Bool { reasons.isEmpty }

    private func ms(_ seconds: Double) -> String { FigureText.milliseconds(seconds) }
    private func number(_ value: Double) -> String { String(format: "%.0f", value) }
    private func percent(_ value: Double?) -> String { value.map { String(format: "%.0f %%", 100 * $0) } ?? "n/a" }

    var text: String {
        let (first, last) = thirds
        var lines = [
            "activity load (\(backend)): \(devices) devices × \(String(format: "%g", rate)) Hz of cumulative steps for \(number(duration)) s (latency from second \(measured.lowerBound) to \(measured.upperBound))",
            "steps messages/s: offered \(number(offered)), achieved \(number(achieved)) (\(published) published at QoS 0; worst publisher lateness \(ms(worstLateness)))",
            "write rate: \(number(reflectedRate)) messages/s shown applied in the activity messages by the end of publishing (\(String(format: "%.1f", 100 * reflectedRate / max(1e-9, achieved))) %); every device caught up \(final.caughtUp(finals))/\(devices) after a \(String(format: "%.1f", drained)) s drain",
            "stored/sent: \(storedTotal)/\(sent) steps (\(devices - devicesWrong)/\(devices) devices exact; \(unanswered) history requests unanswered, \(failedReplies) error replies; \(devices) history requests answered in \(String(format: "%.1f", verifySeconds)) s)",
            "activity latency (receive − last step timestamp; held up to 1 s by the publish interval): p50 \(ms(latencies.percentile(0.5))), p99 \(ms(latencies.percentile(0.99))), max \(ms(latencies.last ?? .nan)); first third p50 \(ms(first.percentile(0.5))), last third p50 \(ms(last.percentile(0.5))) p99 \(ms(last.percentile(0.99))); \(final.messages) activity messages",
            "CPU while publishing: activity service \(percent(cpu.bridge)) of one core, broker \(percent(cpu.broker)), \(postgresCPU == nil ? "" : "PostgreSQL \(percent(postgresCPU)), ")load tool \(percent(cpu.loadTool)), machine \(percent(cpu.machine)) busy",
        ]
        lines.append(
            "per second (activity messages, p50/p99 latency): "
                + (0..<Int(duration.rounded(.up))).map { second in
                    let values = (final.seconds[second] ?? []).sorted()
                    return "\(second):\(values.count) \(ms(values.percentile(0.5)))/\(ms(values.percentile(0.99)))"
                }.joined(separator: ", "))
        lines.append(keptUp ? "KEPT UP" : "DID NOT KEEP UP: " + reasons.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }

    var json: String {
        func value(_ v: Double?) -> String { v.map { String(format: "%.3f", $0) } ?? "null" }
        let fields: [(String, String)] = [
            ("backend", "\"\(backend)\""), ("devices", "\(devices)"), ("rate", "\(rate)"), ("duration", "\(duration)"),
            ("offered", number(offered)), ("achieved", number(achieved)), ("reflectedRate", number(reflectedRate)),
            ("sent", "\(sent)"), ("stored", "\(storedTotal)"), ("devicesWrong", "\(devicesWrong)"),
            ("latencyP50", String(format: "%.4f", latencies.percentile(0.5))),
            ("latencyP99", String(format: "%.4f", latencies.percentile(0.99))),
            ("serviceCPU", value(cpu.bridge)), ("brokerCPU", value(cpu.broker)), ("postgresCPU", value(postgresCPU)),
            ("loadToolCPU", value(cpu.loadTool)), ("machineBusy", value(cpu.machine)), ("keptUp", "\(keptUp)"),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
