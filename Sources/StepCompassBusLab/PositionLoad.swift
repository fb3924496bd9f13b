import ArgumentParser
import Bus
import BusTesting
import Foundation
import StepCompassContract

/// `stepcompass-buslab position-load`: step message → position message latency and CPU of the real
/// `stepcompass-position`, beside a minimal C relay doing the same arithmetic over libmosquitto, in the same run.
struct PositionLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "position-load",
        abstract: "Step → position latency and CPU per message of stepcompass-position beside a minimal C relay.",
        discussion: """
            For each run, twice (the relay and the service, in alternating order): starts a private mosquitto on a \
            free port, publishes a retained heading for each of --devices devices, starts the subject against it and \
            waits for it to say it is online, then publishes --rate steps messages a second in all (QoS 0, one at a \
            time, spread evenly; each adds one step to its device's cumulative count and carries the wall clock) for \
            --duration seconds, and reads stepcompass/+/position back. Latency is a position's arrival minus the \
            sending of the steps message it answers (found by device and step total); CPU is the subject's, per steps \
            message, from /proc. Both leave out the first --warmup seconds. Prints each run, the medians, the \
            service's ratio to the relay, and the issue's goals: p50 within 2× the relay's, p99 under 5 ms, under \
            60 µs of CPU per message. Exit code 3 when a goal is missed or a message went unanswered. The relay is \
            Benchmarks/PositionRelay/position_relay.c; `make benchmark` builds it next to this executable.
            """)

    @Option(help: "Number of devices the steps are spread over.") var devices = 100
    @Option(help: "Steps messages per second, all devices together.") var rate = 1_000.0
    @Option(help: "Seconds of load per subject and run.") var duration = 20.0
    @Option(help: "Seconds at the start left out of the figures.") var warmup = 3.0
    @Option(help: "Most seconds to wait for the last answers.") var drain = 5.0
    @Option(help: "Runs (each measures the relay and the service once).") var runs = 3
    @Option(help: "Path of stepcompass-position (default: next to this executable).") var position: String?
    @Option(help: "Path of the C relay (default: position_relay next to this executable).") var relay: String?
    @Option(help: "Most p50 latency of the service, as a multiple of the relay's.") var maxRatio = 2.0
    @Option(help: "Most p99 latency of the service, milliseconds.") var maxP99 = 5.0
    @Option(help: "Most CPU of the service per steps message, microseconds.") var maxCPU = 60.0
    @Flag(help: "Report only: exit 0 even when a goal is missed.") var noCheck = false

    func validate() throws {
        guard devices >= 1, devices <= 10_000 else { throw ValidationError("--devices must be 1...10000") }
        guard rate >= 1, rate <= 20_000 else { throw ValidationError("--rate must be 1...20000 messages/s") }
        guard duration > warmup + 1, warmup >= 0 else { throw ValidationError("--duration must exceed --warmup by 1 s") }
        guard runs >= 1, runs <= 20 else { throw ValidationError("--runs must be 1...20") }
    }

    func run() async throws {
        let servicePath = BridgeUnderTest.executablePath(position, executable: "stepcompass-position")
        let relayPath = BridgeUnderTest.executablePath(relay, executable: "position_relay")
        try BridgeUnderTest.requireExecutable(servicePath, service: "position")
        guard FileManager.default.isExecutableFile(atPath: relayPath) else {
            throw ValidationError(
                "no C relay at \(relayPath): build it with `cc -O2 -o \(relayPath) Benchmarks/PositionRelay/position_relay.c -lmosquitto -lm` or pass --relay"
            )
        }
        print(
            "position load: \(devices) devices, \(Int(rate)) steps messages/s, \(Int(duration)) s per subject (first \(Int(warmup)) s left out), \(runs) runs"
        )
        var results: [PositionLoadResult] = []
        for run in 0..<runs {
            let order: [PositionLoadResult.Subject] = run % 2 == 0 ? [.relay, .service] : [.service, .relay]
            for subject in order {
                let result = try await measure(subject, path: subject == .relay ? relayPath : servicePath, run: run + 1)
                print(result.line)
                results.append(result)
            }
        }
        let summary = PositionLoadSummary(
            results: results, maxRatio: maxRatio, maxP99: maxP99 / 1_000, maxCPU: maxCPU / 1_000_000)
        print(summary.text)
        if !summary.met && !noCheck { throw ExitCode(3) }
    }

    private func measure(_ subject: PositionLoadResult.Subject, path: String, run: Int) async throws -> PositionLoadResult {
        let broker = try await MosquittoBrokerProcess.launch(configuration: "max_queued_messages 1000000")
        do {
            let result = try await measure(subject, path: path, run: run, broker: broker)
            await broker.shutdown()
            return result
        } catch {
            await broker.shutdown()
            throw error
        }
    }

    private func measure(
        _ subject: PositionLoadResult.Subject, path: String, run: Int, broker: MosquittoBrokerProcess
    ) async throws -> PositionLoadResult {
        let prefix = "stepcompass"
        let port = broker.port
        let devices = devices
        let total = Int((duration * rate).rounded())
        let perDevice = total / devices + 2
        let interval = 1 / rate

        let publisher = try await RawMQTTClient.onThread("position-load-connect") {
            try RawMQTTClient(port: port, clientID: "position-load-steps")
        }
        var headings = [UInt8]()
        for device in 0..<devices {
            RawMQTTClient.appendPublish(
                topic: Array("\(prefix)/load-\(device)/heading".utf8), payload: Array(#"{"heading":45}"#.utf8), retain: true,
                to: &headings)
        }
        try publisher.send(headings)
        let answers = PositionAnswers(devices: devices, perDevice: perDevice)
        let reader = try await RawMQTTClient.onThread("position-load-connect") {
            let client = try RawMQTTClient(port: port, clientID: "position-load-positions")
            try client.subscribe("\(prefix)/+/position")
            return client
        }
        let receiver = Task {
            try await RawMQTTClient.onThread("position-load-positions") {
                reader.readPublishes { topic, payload in
                    let now = Date().timeIntervalSince1970
                    guard let device = PositionAnswers.device(inTopic: topic),
                        let steps = DetectorLoad.integer(field: #""steps":"#, in: payload)
                    else { return }
                    answers.answer(device: device, steps: steps, at: now)
                }
            }
        }
        let service = try await BridgeUnderTest.start(
            path: path, arguments: [], port: port, prefix: prefix, label: "position-load",
            service: subject == .relay ? "relay" : "position")
        let pid = service.process.pid

        let start = Date().timeIntervalSince1970 + 0.2
        let warmupIndex = Int((warmup * rate).rounded(.up))
        let cpuAtWarmup = LockedValue<Double?>(nil)
        let sending = Task {
            try await RawMQTTClient.onThread("position-load-steps") {
                var counts = [Int](repeating: 0, count: devices)
                var packet = [UInt8]()
                var lateness = 0.0
                for index in 0..<total {
                    let due = start + Double(index) * interval
                    let wait = due - Date().timeIntervalSince1970
                    if wait > 0 { Thread.sleep(forTimeInterval: wait) } else { lateness = max(lateness, -wait) }
                    if index == warmupIndex {
                        cpuAtWarmup.withLock { $0 = ProcessCPU.seconds(pid: pid) }
                    }
                    let device = index % devices
                    counts[device] += 1
                    let now = Date().timeIntervalSince1970
                    packet.removeAll(keepingCapacity: true)
                    RawMQTTClient.appendPublish(
                        topic: Array("\(prefix)/load-\(device)/steps".utf8),
                        payload: Array(#"{"steps":\#(counts[device]),"timestamp":"\#(Timestamp.format(secondsSince1970: now))"}"#.utf8),
                        to: &packet)
                    answers.sent(device: device, steps: counts[device], at: now, measured: index >= warmupIndex)
                    try publisher.send(packet)
                }
                return lateness
            }
        }
        let lateness = try await sending.value
        let publishEnd = Date().timeIntervalSince1970
        let drainEnd = publishEnd + drain
        while Date().timeIntervalSince1970 < drainEnd, !answers.allAnswered {
            try await Task.sleep(for: .milliseconds(5))
        }
        // After the drain: work still queued when sending ended counts too (a subject that fell behind is not cheaper).
        let cpuAtEnd = ProcessCPU.seconds(pid: pid)
        reader.stopReading()
        _ = try? await receiver.value
        reader.disconnect()
        publisher.disconnect()
        let alive = service.process.isRunning
        await service.stop()

        let figures = answers.figures
        let cpu = cpuAtWarmup.withLock { $0 }.flatMap { before in cpuAtEnd.map { $0 - before } }
        return PositionLoadResult(
            subject: subject, run: run, sentMeasured: figures.sentMeasured, answeredMeasured: figures.latencies.count,
            unanswered: figures.unanswered, latencies: figures.latencies,
            cpuPerMessage: cpu.map { $0 / Double(max(1, figures.sentMeasured)) }, lateness: lateness, alive: alive)
    }
}
