import ArgumentParser
import Bus
import BusTesting
import Foundation
import ServiceRuntime
import StepCompassContract
import StepCompassTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `stepcompass-buslab bad-flood`: a burst of bad messages at the real compass or position service, and good probes
/// through it (issue 17).
///
/// Every service must stay responsive under a flood of bad input (a good message still answered within 1 s) and
/// rate-limit its error reports (``ServiceRuntime/ErrorReporter``: a burst of 20, then 10 a second, each report
/// saying in `dropped` how many were left out before it). The tool publishes `--count` bad messages of many kinds
/// (invalid JSON, wrong types, non-finite and out-of-range numbers, bad device ids, oversized payloads, bad inputs
/// on every topic the service reads) as ready-made QoS 0 packets, and meanwhile, every `--probe-interval`, one good
/// input from a probe device on another connection, timing the service's answer on the bus with the wall clock.
struct BadFlood: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bad-flood",
        abstract: "Flood the real service with bad messages; time good probes and count the error reports.",
        discussion: """
            Starts a private mosquitto on a free port and stepcompass-compass or stepcompass-position against it (with \
            --metrics-port), publishes --count bad messages (a fixed mix of kinds, QoS 0, as fast as the broker takes \
            them unless --rate is given) on the service's input topics, and every --probe-interval one good input for \
            a probe device on a connection of its own (compass: the first IMU sample of a new device, answered by its \
            heading; position: a steps count that completes a batch, answered by the device's position). Probing \
            goes on until the service has handled every bad message. Prints the bad messages sent and their rate, the \
            probes answered and their latency (p50, p99, max), the error reports received and the sum of their \
            `dropped` fields, the service's rejection counts and RSS before and after. Exit code 3 when a probe was \
            not answered within 1 s, the service died, or the error reports were not rate-limited.
            """)

    enum Target: String, ExpressibleByArgument, CaseIterable, Sendable {
        case compass, position

        /// The topic of the service's answers to probes (a device topic).
        var answer: Topics.DeviceTopic { self == .compass ? .heading : .position }
    }

    @Option(help: "The service: compass or position.") var service: Target = .compass
    @Option(help: "Bad messages to send.") var count = 100_000
    @Option(help: "Bad messages a second (0: as fast as the broker takes them).") var rate = 0.0
    @Option(help: "Seconds between probes.") var probeInterval = 0.5
    @Option(help: "The latency a probe's answer must stay under, seconds.") var target = 1.0
    @Option(help: "Path of the service's executable (default: next to this executable).") var executable: String?
    @Option(help: "Seconds to wait for the service to handle every bad message after the last is sent.") var timeout = 120.0
    @Flag(help: "Print one JSON line instead of text.") var json = false

    func validate() throws {
        guard count >= 1, count <= 100_000_000 else { throw ValidationError("--count must be 1...100000000") }
        guard rate >= 0 else { throw ValidationError("--rate must be 0 or positive") }
        guard probeInterval >= 0.01 else { throw ValidationError("--probe-interval must be at least 0.01") }
        guard target > 0 else { throw ValidationError("--target must be positive") }
    }

    var executablePath: String { BridgeUnderTest.executablePath(executable, executable: "stepcompass-\(service.rawValue)") }

    func run() async throws {
        try BridgeUnderTest.requireExecutable(executablePath, service: service.rawValue)
        try await PrivateBroker.measure(configuration: "max_queued_messages 2000000") { broker in
            try await measure(port: broker.port)
        }
    }

    private func measure(port: Int) async throws -> Bool {
        let prefix = "stepcompass"
        let topics = Topics(prefix: prefix)
        let metricsPort = try MosquittoBrokerProcess.freePort()
        let serviceUnderTest = try await BridgeUnderTest.start(
            path: executablePath, arguments: [], port: port, prefix: prefix, label: "bad-flood", service: service.rawValue,
            environment: ["METRICS_PORT": "\(metricsPort)"])
        let child = serviceUnderTest.process
        defer { child.signal(SIGKILL) }

        // Two readers on threads of their own, each stamping what it receives with the wall clock as it reads it.
        let answers = ProbeAnswers()
        let reports = ErrorReportTally()
        let target = service
        let answerReader = try await RawMQTTClient.onThread("bad-flood-answers") {
            let client = try RawMQTTClient(port: port, clientID: "bad-flood-answers")
            try client.subscribe("\(topics.allDevices(target.answer))")
            return client
        }
        let reportReader = try await RawMQTTClient.onThread("bad-flood-errors") {
            let client = try RawMQTTClient(port: port, clientID: "bad-flood-errors")
            try client.subscribe(topics.errors(target.rawValue))
            return client
        }
        let errorsTopic = topics.errors(service.rawValue)
        let answerReading = Task {
            try await RawMQTTClient.onThread("bad-flood-answers-read") {
                answerReader.readPublishes { topic, payload in
                    let now = Date().timeIntervalSince1970
                    let topic = String(decoding: topic, as: UTF8.self)
                    guard topic != errorsTopic else { return }  // `+/position` matches `errors/position`
                    answers.received(topic: topic, payload: payload, at: now, target: target)
                }
            }
        }
        let reportReading = Task {
            try await RawMQTTClient.onThread("bad-flood-errors-read") {
                reportReader.readPublishes { _, payload in reports.received(payload, at: Date().timeIntervalSince1970) }
            }
        }

        let prober = try await RawMQTTClient.onThread("bad-flood-probe-connect") {
            try RawMQTTClient(port: port, clientID: "bad-flood-prober")
        }
        let probes = ProbeSender(client: prober, target: service, prefix: prefix, answers: answers)
        // A first probe before the flood: the service answers at all, and how fast when idle.
        try await RawMQTTClient.onThread("bad-flood-warm-up") { try probes.prepare() }
        let idleLatency = try await probes.warmUp()
        try await Task.sleep(for: .seconds(1))
        let rssBefore = ProcessMemory.residentKiB(pid: child.pid) ?? 0
        let metricsBefore = DeviceFlood.scrape(port: metricsPort)
        let handledBefore = metricsBefore.value("stepcompass_message_handling_seconds_count") ?? 0
        let rejectedBefore = metricsBefore.value("stepcompass_rejected_inputs_total") ?? 0
        let droppedBefore = metricsBefore.value("stepcompass_error_reports_dropped_total") ?? 0
        let reportsBefore = reports.snapshot().count

        let mix = BadMessageMix(target: service, prefix: prefix)
        let publisher = try await RawMQTTClient.onThread("bad-flood-connect") {
            try RawMQTTClient(port: port, clientID: "bad-flood-publisher")
        }
        let stopProbing = LockedValue(false)
        let interval = probeInterval
        let probing = Task {
            try await RawMQTTClient.onThread("bad-flood-probe") {
                while !stopProbing.withLock({ $0 }) {
                    let due = Date().timeIntervalSince1970 + interval
                    try probes.send()
                    let wait = due - Date().timeIntervalSince1970
                    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                }
            }
        }
        let (count, rate) = (count, rate)
        let floodStart = Date().timeIntervalSince1970
        let sentByKind = try await RawMQTTClient.onThread("bad-flood-publish") {
            try mix.send(count, rate: rate, through: publisher)
        }
        let floodEnd = Date().timeIntervalSince1970

        // Keep probing while the service works through the flood: until it has rejected every bad message, or is idle
        // (fewer than 100 messages handled in 3 s: probes and its own error reports only).
        var handled = 0.0
        var rejectedSoFar = 0.0
        var recent: [(time: Date, handled: Double)] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, child.isRunning {
            let metrics = DeviceFlood.scrape(port: metricsPort)
            handled = max(handled, (metrics.value("stepcompass_message_handling_seconds_count") ?? 0) - handledBefore)
            rejectedSoFar = max(rejectedSoFar, (metrics.value("stepcompass_rejected_inputs_total") ?? 0) - rejectedBefore)
            recent.append((Date(), handled))
            recent.removeAll { Date().timeIntervalSince($0.time) > 3 }
            if rejectedSoFar >= Double(count) { break }
            if let oldest = recent.first, Date().timeIntervalSince(oldest.time) > 2.5, handled - oldest.handled < 100 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let drainEnd = Date().timeIntervalSince1970
        // Two more probes after the drain, then the answers' grace period (longer than the target, so that a probe
        // counted as unanswered was not answered within the target).
        try await Task.sleep(for: .seconds(max(1, 2 * interval)))
        stopProbing.withLock { $0 = true }
        _ = try? await probing.value
        try await Task.sleep(for: .seconds(self.target + 1))

        let rssAfter = ProcessMemory.residentKiB(pid: child.pid) ?? 0
        let peak = ProcessMemory.peakKiB(pid: child.pid) ?? 0
        let metricsAfter = DeviceFlood.scrape(port: metricsPort)
        let alive = child.isRunning
        answerReader.stopReading()
        reportReader.stopReading()
        _ = try? await answerReading.value
        _ = try? await reportReading.value
        let probeResults = answers.results(after: 1)
        let tally = reports.snapshot()

        let latencies = probeResults.compactMap(\.latency).sorted()
        let late = probeResults.filter { ($0.latency ?? .infinity) > self.target }
        let floodSeconds = max(1e-9, floodEnd - floodStart)
        let reportsInFlood = tally.count - reportsBefore
        // The bucket allows a burst, then so many a second: over the reports' own span, at most burst + rate × span
        // (one more for the span's rounding).
        let span = max(0, (tally.last ?? 0) - (tally.first ?? 0))
        let limit = ErrorReporter.Limit.defaults
        let allowed = limit.burst + Int((limit.perSecond * span).rounded(.up)) + 1
        let rejected = Int((metricsAfter.value("stepcompass_rejected_inputs_total") ?? 0) - rejectedBefore)
        let droppedMetric = Int((metricsAfter.value("stepcompass_error_reports_dropped_total") ?? 0) - droppedBefore)
        let figures = BadFloodFigures(
            service: service.rawValue, sent: count, sentByKind: sentByKind, sendSeconds: floodSeconds,
            sendRate: Double(count) / floodSeconds, drainSeconds: drainEnd - floodStart,
            handled: Int(handled), rejected: rejected, idleLatency: idleLatency,
            probesSent: probeResults.count, probesDuringFlood: probeResults.filter { $0.sentAt <= drainEnd }.count,
            probesAnswered: latencies.count, probesLate: late.count,
            latencyP50: latencies.isEmpty ? nil : latencies.percentile(0.5),
            latencyP99: latencies.isEmpty ? nil : latencies.percentile(0.99), latencyMax: latencies.last,
            worstProbes: late.prefix(5).map {
                "#\($0.index) at +\(String(format: "%.2f", $0.sentAt - floodStart)) s: "
                    + ($0.latency.map { String(format: "%.0f ms", $0 * 1_000) } ?? "no answer")
            },
            reportsReceived: reportsInFlood, reportsAllowed: allowed, reportsSpanSeconds: span,
            droppedSum: tally.dropped, droppedMetric: droppedMetric, reportsWithoutPayload: tally.malformed,
            unexpectedAnswers: answers.unexpected, rssBeforeKiB: rssBefore, rssAfterKiB: rssAfter, peakKiB: peak,
            target: self.target, serviceAlive: alive)
        print(json ? figures.json : figures.text)

        _ = try? await RawMQTTClient.onThread("bad-flood-disconnect") {
            publisher.disconnect()
            prober.disconnect()
            answerReader.disconnect()
            reportReader.disconnect()
        }
        await serviceUnderTest.stop()
        return figures.passed
    }
}

/// The bad messages of a flood: a fixed mix of kinds, each one ready-made QoS 0 PUBLISH packet sent again and again.
struct BadMessageMix: Sendable {
    struct Kind: Sendable {
        var name: String
        var packet: [UInt8]
    }

    /// Sent in turn; every 100th message is the oversized one instead.
    let kinds: [Kind]
    let oversized: Kind

    init(target: BadFlood.Target, prefix: String) {
        func kind(_ name: String, _ device: String, _ suffix: String, _ payload: String) -> Kind {
            bytes(name, device, suffix, Array(payload.utf8))
        }
        func bytes(_ name: String, _ device: String, _ suffix: String, _ payload: [UInt8]) -> Kind {
            var packet: [UInt8] = []
            RawMQTTClient.appendPublish(topic: Array("\(prefix)/\(device)/\(suffix)".utf8), payload: payload, to: &packet)
            return Kind(name: name, packet: packet)
        }
        let stamp = "2026-11-22T10:15:30.250Z"
        let long = String(repeating: "d", count: 65)
        var list: [Kind]
        let input: String
        let valid: String
        switch target {
        case .compass:
            input = "imu"
            valid = #"{"timestamp":"\#(stamp)","accel":[0.0,0.0,9.80665],"mag":[0.0,21.0,-44.0]}"#
            list = [
                kind("truncated JSON", "bad-1", input, #"{"timestamp":"\#(stamp)","accel":[0.0,0.0,9.8"#),
                kind("not JSON", "bad-2", input, "hello compass"),
                bytes("invalid UTF-8", "bad-3", input, [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]),
                kind("not an object", "bad-4", input, "[1,2,3]"),
                kind("wrong type", "bad-5", input, #"{"timestamp":"\#(stamp)","accel":"flat","mag":[0.0,21.0,-44.0]}"#),
                kind("wrong arity", "bad-6", input, #"{"timestamp":"\#(stamp)","accel":[0.0,9.8],"mag":[0.0,21.0,-44.0]}"#),
                kind("missing field", "bad-7", input, #"{"timestamp":"\#(stamp)","accel":[0.0,0.0,9.8]}"#),
                kind("NaN", "bad-8", input, #"{"timestamp":"\#(stamp)","accel":[NaN,0.0,9.8],"mag":[0.0,21.0,-44.0]}"#),
                kind("overflow", "bad-9", input, #"{"timestamp":"\#(stamp)","accel":[1e999,0.0,9.8],"mag":[0.0,21.0,-44.0]}"#),
                kind("string NaN", "bad-10", input, #"{"timestamp":"\#(stamp)","accel":["NaN",0.0,9.8],"mag":[0.0,21.0,-44.0]}"#),
                kind("bad timestamp", "bad-11", input, #"{"timestamp":"yesterday","accel":[0.0,0.0,9.8],"mag":[0.0,21.0,-44.0]}"#),
                kind("null", "bad-12", input, "null"),
                kind("empty", "bad-13", input, ""),
                kind("device with a dot", "bad.device", input, valid),
                kind("device too long", long, input, valid),
                kind("reserved device", "services", input, valid),
                kind("bad location", "bad-14", "location", #"{"latitude":91.0,"longitude":0.0}"#),
                kind("bad permissions", "bad-15", "permissions", #"{"motion":"maybe","location":"authorized"}"#),
                kind("bad command", "bad-16", "cmd/bearing-lock", #"{"action":"spin"}"#),
                kind("bad settings", "bad-16", "cmd/settings", #"{"north":"up"}"#),
            ]
        case .position:
            input = "steps"
            valid = #"{"steps":12,"timestamp":"\#(stamp)"}"#
            list = [
                kind("truncated JSON", "bad-1", input, #"{"steps":12,"timest"#),
                kind("not JSON", "bad-2", input, "hello position"),
                bytes("invalid UTF-8", "bad-3", input, [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]),
                kind("not an object", "bad-4", input, "[12]"),
                kind("wrong type", "bad-5", input, #"{"steps":"twelve","timestamp":"\#(stamp)"}"#),
                kind("missing field", "bad-6", input, #"{"timestamp":"\#(stamp)"}"#),
                kind("NaN", "bad-7", input, #"{"steps":NaN,"timestamp":"\#(stamp)"}"#),
                kind("overflow", "bad-8", input, #"{"steps":1e999,"timestamp":"\#(stamp)"}"#),
                kind("negative", "bad-9", input, #"{"steps":-5,"timestamp":"\#(stamp)"}"#),
                kind("fractional", "bad-10", input, #"{"steps":1.5,"timestamp":"\#(stamp)"}"#),
                kind("bad timestamp", "bad-11", input, #"{"steps":12,"timestamp":"yesterday"}"#),
                kind("null", "bad-12", input, "null"),
                kind("empty", "bad-13", input, ""),
                kind("device with a dot", "bad.device", input, valid),
                kind("device too long", long, input, valid),
                kind("reserved device", "services", input, valid),
                kind("heading out of range", "bad-14", "heading", #"{"timestamp":"\#(stamp)","heading":400.0}"#),
                kind("heading wrong type", "bad-15", "heading", #"{"timestamp":"\#(stamp)","heading":"north"}"#),
                kind("bad reset", "bad-16", "cmd/reset-position", "[]"),
            ]
        }
        kinds = list
        // Just over the decoders' 64 KiB limit, and otherwise a valid input.
        let padding = String(repeating: "x", count: 64 * 1_024)
        oversized = kind("oversized", "bad-17", input, #"{"pad":"\#(padding)","# + String(valid.dropFirst()))
    }

    /// The kind of the message at `index`.
    func kind(at index: Int) -> Kind {
        index % 100 == 99 ? oversized : kinds[index % kinds.count]
    }

    /// Sends `count` messages through `client`, a chunk per `write` (at `rate` a second, or as fast as the socket
    /// takes them when `rate` is 0), and returns how many of each kind went out. Blocking: call on a thread.
    func send(_ count: Int, rate: Double, through client: RawMQTTClient) throws -> [String: Int] {
        var sent: [String: Int] = [:]
        let chunk = rate > 0 ? max(1, Int(rate / 100)) : 256
        var packets: [UInt8] = []
        packets.reserveCapacity(chunk * 200 + 70_000)
        let start = Date().timeIntervalSince1970
        var next = 0
        while next < count {
            if rate > 0 {
                let wait = start + Double(next) / rate - Date().timeIntervalSince1970
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            }
            packets.removeAll(keepingCapacity: true)
            for index in next..<min(count, next + chunk) {
                let kind = kind(at: index)
                packets.append(contentsOf: kind.packet)
                sent[kind.name, default: 0] += 1
            }
            try client.send(packets)
            next = min(count, next + chunk)
        }
        return sent
    }
}

/// The probes' send times and their answers' receive times (wall clock, seconds since 1970).
final class ProbeAnswers: @unchecked Sendable {
    struct Probe: Sendable {
        var index: Int
        var sentAt: Double
        var answeredAt: Double?
        var latency: Double? { answeredAt.map { $0 - sentAt } }
    }

    private let state = LockedValue((probes: [Int: Probe](), unexpected: 0))

    /// Answers on the answer topic for devices that are not probes (a bad message that got through).
    var unexpected: Int { state.withLock { $0.unexpected } }

    func sent(_ index: Int, at time: Double) {
        state.withLock { $0.probes[index] = Probe(index: index, sentAt: time) }
    }

    /// Matches an answer to its probe: compass, by the device (`probe-N`); position, by its `sessionSteps` (10 × N).
    func received(topic: String, payload: ArraySlice<UInt8>, at time: Double, target: BadFlood.Target) {
        let levels = topic.split(separator: "/")
        guard levels.count == 3 else { return }
        let index: Int?
        switch target {
        case .compass:
            index = levels[1].hasPrefix("probe-") ? Int(levels[1].dropFirst("probe-".count)) : nil
        case .position:
            if levels[1] == ProbeSender.positionDevice,
                let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
                let steps = object["sessionSteps"] as? Int, steps % 10 == 0
            {
                index = steps / 10
            } else {
                index = nil
            }
        }
        state.withLock { state in
            guard let index else {
                state.unexpected += 1
                return
            }
            // The first answer counts (a compass device may publish again when its rate window ends).
            if state.probes[index]?.answeredAt == nil { state.probes[index]?.answeredAt = time }
        }
    }

    func answered(_ index: Int) -> Probe? { state.withLock { $0.probes[index] } }

    /// Every probe from `first` on, in order.
    func results(after first: Int) -> [Probe] {
        state.withLock { $0.probes.values.filter { $0.index > first }.sorted { $0.index < $1.index } }
    }
}

/// Sends the good inputs: the first IMU sample of a new device `probe-N` (compass), or the steps count 10 × N for
/// the device `probe` (position), each a batch the service answers with a position. Blocking: call on a thread.
final class ProbeSender: @unchecked Sendable {
    static let positionDevice = "probe"

    private let client: RawMQTTClient
    private let target: BadFlood.Target
    private let prefix: String
    private let answers: ProbeAnswers
    private let next = LockedValue(0)

    init(client: RawMQTTClient, target: BadFlood.Target, prefix: String, answers: ProbeAnswers) {
        self.client = client
        self.target = target
        self.prefix = prefix
        self.answers = answers
    }

    /// The position service moves a batch only along a known heading: give the probe device one.
    func prepare() throws {
        guard target == .position else { return }
        let payload = #"{"timestamp":"\#(Timestamp.format(Date()))","status":"ok","heading":90.0}"#
        var packet: [UInt8] = []
        RawMQTTClient.appendPublish(
            topic: Array("\(prefix)/\(Self.positionDevice)/heading".utf8), payload: Array(payload.utf8), to: &packet)
        try client.send(packet)
    }

    /// Sends the next probe; returns its index (from 1).
    @discardableResult
    func send() throws -> Int {
        let index = next.withLock { value in
            value += 1
            return value
        }
        let now = Date()
        let stamp = Timestamp.format(now)
        let topic: String
        let payload: String
        switch target {
        case .compass:
            topic = "\(prefix)/probe-\(index)/imu"
            payload = #"{"timestamp":"\#(stamp)","accel":[0.0,0.0,9.80665],"mag":[0.0,21.0,-44.0]}"#
        case .position:
            topic = "\(prefix)/\(Self.positionDevice)/steps"
            payload = #"{"steps":\#(10 * index),"timestamp":"\#(stamp)"}"#
        }
        var packet: [UInt8] = []
        RawMQTTClient.appendPublish(topic: Array(topic.utf8), payload: Array(payload.utf8), to: &packet)
        answers.sent(index, at: now.timeIntervalSince1970)
        try client.send(packet)
        return index
    }

    /// Sends probe 1 and waits up to 10 s for its answer; returns its latency.
    /// - Throws: `ValidationError` when the idle service does not answer.
    func warmUp() async throws -> Double {
        let index = try await RawMQTTClient.onThread("bad-flood-warm-up-probe") { try self.send() }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let latency = answers.answered(index)?.latency { return latency }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw ValidationError("the idle stepcompass-\(target.rawValue) did not answer the first probe within 10 s")
    }
}

/// The error reports received: how many, the sum of their `dropped` fields, and when the first and last came.
final class ErrorReportTally: @unchecked Sendable {
    struct Snapshot: Sendable {
        var count = 0
        var dropped = 0
        var malformed = 0
        var first: Double?
        var last: Double?
    }

    private let state = LockedValue(Snapshot())

    func received(_ payload: ArraySlice<UInt8>, at time: Double) {
        let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        state.withLock { state in
            state.count += 1
            state.first = state.first ?? time
            state.last = time
            guard let object, object["error"] is String, object["topic"] is String, object["payload"] is String else {
                state.malformed += 1
                return
            }
            state.dropped += object["dropped"] as? Int ?? 0
        }
    }

    func snapshot() -> Snapshot { state.withLock { $0 } }
}

/// What one bad flood measured, and the verdict.
struct BadFloodFigures: Encodable {
    var service: String
    var sent: Int
    var sentByKind: [String: Int]
    var sendSeconds: Double
    var sendRate: Double
    /// From the first bad message sent until the service had handled them all (or stopped making progress).
    var drainSeconds: Double
    var handled: Int
    var rejected: Int
    var idleLatency: Double
    var probesSent: Int
    /// Probes sent before the service had handled the flood.
    var probesDuringFlood: Int
    var probesAnswered: Int
    var probesLate: Int
    var latencyP50: Double?
    var latencyP99: Double?
    var latencyMax: Double?
    var worstProbes: [String]
    var reportsReceived: Int
    var reportsAllowed: Int
    var reportsSpanSeconds: Double
    var droppedSum: Int
    var droppedMetric: Int
    var reportsWithoutPayload: Int
    var unexpectedAnswers: Int
    var rssBeforeKiB: Int
    var rssAfterKiB: Int
    var peakKiB: Int
    var target: Double
    var serviceAlive: Bool

    var rateLimited: Bool { reportsReceived <= reportsAllowed && reportsWithoutPayload == 0 }
    var responsive: Bool { probesSent > 0 && probesLate == 0 }
    var passed: Bool { serviceAlive && responsive && rateLimited }

    private func mebibytes(_ kib: Int) -> String { String(format: "%.1f MiB", Double(kib) / 1_024) }
    private func ms(_ seconds: Double?) -> String { seconds.map { FigureText.milliseconds($0, decimals: 1) } ?? "n/a" }

    var text: String {
        let kinds = sentByKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var lines = [
            "bad-flood \(service): \(sent) bad messages sent in \(String(format: "%.2f", sendSeconds)) s "
                + "(\(String(format: "%.0f", sendRate)) msg/s); the service handled \(handled) messages, rejected \(rejected), "
                + "\(String(format: "%.1f", drainSeconds)) s after the first was sent",
            "  kinds: \(kinds)",
            "  probes: \(probesAnswered)/\(probesSent) answered (\(probesDuringFlood) sent during the flood), \(probesLate) later than \(ms(target)) or never; latency "
                + "p50 \(ms(latencyP50)), p99 \(ms(latencyP99)), max \(ms(latencyMax)) (idle, before the flood: \(ms(idleLatency)))",
        ]
        lines += worstProbes.map { "    late: \($0)" }
        lines += [
            "  error reports: \(reportsReceived) received over \(String(format: "%.1f", reportsSpanSeconds)) s (the limit allows "
                + "\(reportsAllowed)), sum of \"dropped\" \(droppedSum), the service's dropped counter \(droppedMetric); "
                + "reports + dropped = \(reportsReceived + droppedSum), left out after the last report (in no report yet) "
                + "\(droppedMetric - droppedSum)"
                + (reportsWithoutPayload > 0 ? "; \(reportsWithoutPayload) without the report's fields" : ""),
            "  answers for devices that sent only bad messages: \(unexpectedAnswers)",
            "  RSS before \(mebibytes(rssBeforeKiB)), after \(mebibytes(rssAfterKiB)), peak \(mebibytes(peakKiB))",
            "  service \(serviceAlive ? "still running" : "NOT RUNNING")",
        ]
        var verdict = passed ? "RESPONSIVE" : "NOT RESPONSIVE"
        if !responsive { verdict += ": a probe was not answered within \(ms(target))" }
        if !rateLimited { verdict += "; error reports not rate-limited" }
        if !serviceAlive { verdict += "; the service died" }
        lines.append(verdict)
        return lines.joined(separator: "\n")
    }

    /// One JSON object with the fields above and the verdict, keys sorted (a latency without probes answered: null).
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self),
            var object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return "{}" }
        object["passed"] = passed
        object["rateLimited"] = rateLimited
        object["responsive"] = responsive
        for key in ["latencyP50", "latencyP99", "latencyMax"] where object[key] == nil { object[key] = NSNull() }
        guard let line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return "{}" }
        return String(decoding: line, as: UTF8.self)
    }
}
