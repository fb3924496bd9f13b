import ArgumentParser
import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import Synchronization

/// `stepcompass-buslab journal-load`: the issue's speed target for the walk journal, measured on the real
/// `stepcompass-journal` through a private mosquitto and a local photo server with network latency.
struct JournalLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal-load",
        abstract: "Load the journal with N walking devices, each reaching a photo point every T seconds, against a local photo server with latency.",
        discussion: """
            Starts a private mosquitto, a local photo server (the stand-in of photo-server, every answer delayed by \
            --latency-ms) and stepcompass-journal (SQLite and the image cache in a temporary folder). Each device has \
            its location permission, starts a walk, and walks north sending a GPS fix every --fix-every seconds at the \
            speed that reaches a photo point (--photo-every metres) every --interval seconds; the devices' starts are \
            spread over one interval, so the points arrive evenly. Reads stepcompass/+/journal/photo and reports the \
            points reached and answered (found or none), the time from reaching a point to its photo message \
            (p50/p99/max), the photo service calls, and the journal's memory (resident set, sampled every 5 s). With \
            --flickr the journal searches Flickr under --flickr-calls-per-hour and the run checks that the calls \
            stayed within the key's allowance. Exit code 3 when a point was missed, the rate was exceeded, or memory \
            grew without bound.
            """)

    @Option(help: "Walking devices.") var devices = 500
    @Option(help: "Seconds between two photo points of a device.") var interval = 70.0
    @Option(help: "Seconds of walking.") var duration = 150.0
    @Option(name: .customLong("latency-ms"), help: "Delay of every photo server answer, in milliseconds.") var latency: Int64 = 50
    @Option(name: .customLong("photo-every"), help: "Metres between photo points.") var photoEvery = 100.0
    @Option(name: .customLong("fix-every"), help: "Seconds between two GPS fixes of a device.") var fixEvery = 2.0
    @Option(help: "Most seconds to wait after the walking for the last points' photos.") var drain = 30.0
    @Flag(help: "Search Flickr (the local stand-in) with a key, under --flickr-calls-per-hour.") var flickr = false
    @Option(name: .customLong("flickr-calls-per-hour"), help: "The journal's Flickr allowance.") var flickrCallsPerHour = 3_400
    @Option(help: "Path of stepcompass-journal (default: next to this executable).") var service: String?

    func validate() throws {
        guard (1...20_000).contains(devices) else { throw ValidationError("--devices must be 1...20000") }
        guard interval >= 1, duration > interval, fixEvery > 0, fixEvery <= interval / 4 else {
            throw ValidationError("--interval ≥ 1, --duration > --interval, 0 < --fix-every ≤ --interval/4")
        }
    }

    /// The photo server's log: when each search arrived.
    final class ServerLog: Sendable {
        let searches = Mutex<[Double]>([])
        let flickrSearches = Mutex<[Double]>([])
    }

    /// What the journal answered, per device and point.
    final class Answers: Sendable {
        struct State {
            var reached: [Int: [Int: Double]] = [:]  // device → point → wall time
            var answered: [Int: [Int: Double]] = [:]
            var found = 0
            var none = 0
            var pending = 0
        }

        let state = Mutex(State())
    }

    func run() async throws {
        let path = BridgeUnderTest.executablePath(service, executable: "stepcompass-journal")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-journal-load-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let broker = try await MosquittoBrokerProcess.launch(configuration: "max_queued_messages 1000000")
        let log = ServerLog()
        let latency = latency
        let base = Mutex("")
        let server = try await TestHTTPServer.start { request, _ in
            let now = Date().timeIntervalSince1970
            if request.path.hasPrefix("/services/rest") { log.flickrSearches.withLock { $0.append(now) } }
            if request.path.hasPrefix("/w/api.php") { log.searches.withLock { $0.append(now) } }
            let reply = LocalPhotoAPI(baseURL: base.withLock { $0 }).reply(to: request.path)
            return latency > 0 ? .delayed(milliseconds: latency, reply) : reply
        }
        base.withLock { $0 = server.baseURL }
        var arguments = [
            "--data-dir", folder.appendingPathComponent("db").path, "--cache-dir", folder.appendingPathComponent("photos").path,
            "--wikimedia-url", server.baseURL + "/w/api.php", "--photo-every", "\(photoEvery)",
        ]
        var environment: [String: String] = [:]
        if flickr {
            arguments += ["--flickr-url", server.baseURL + "/services/rest/", "--flickr-calls-per-hour", "\(flickrCallsPerHour)"]
            environment["FLICKR_KEY"] = "journal-load-key"
        }
        let journal: BridgeUnderTest
        do {
            journal = try await BridgeUnderTest.start(
                path: path, arguments: arguments, port: broker.port, prefix: "stepcompass", label: "journal-load", service: "journal",
                environment: environment)
        } catch {
            await server.shutdown()
            await broker.shutdown()
            throw error
        }
        var passed = false
        var failure: (any Error)?
        do {
            passed = try await measure(journal: journal, log: log)
        } catch {
            failure = error
        }
        await journal.stop()
        await server.shutdown()
        await broker.shutdown()
        if let failure { throw failure }
        if !passed { throw ExitCode(3) }
    }

    private func measure(journal: BridgeUnderTest, log: ServerLog) async throws -> Bool {
        let probe = journal.probe
        let answers = Answers()
        let photos = try await probe.subscribe(to: TopicFilter("stepcompass/+/journal/photo"), qos: .atLeastOnce)
        let receiver = Task {
            for await message in photos {
                let now = Date().timeIntervalSince1970
                let parts = message.topic.split(separator: "/")
                guard parts.count == 4, let device = Int(parts[1].dropFirst(2)),
                    let object = try? JSONSerialization.jsonObject(with: message.payload) as? [String: Any],
                    let point = object["point"] as? Int, let status = object["status"] as? String
                else { continue }
                answers.state.withLock { state in
                    switch status {
                    case "pending":
                        state.pending += 1
                    default:
                        if state.answered[device]?[point] == nil {
                            state.answered[device, default: [:]][point] = now
                            if status == "found" { state.found += 1 } else { state.none += 1 }
                        }
                    }
                }
            }
        }
        defer { receiver.cancel() }
        let journals = try await probe.subscribe(to: TopicFilter("stepcompass/+/journal"), qos: .atLeastOnce)
        for device in 0..<devices {
            try await probe.publish(
                BusMessage(
                    topic: "stepcompass/jl\(device)/permissions", text: #"{"motion":"authorized","location":"authorized"}"#, qos: .atLeastOnce,
                    retain: true))
            try await probe.publish(BusMessage(topic: "stepcompass/jl\(device)/cmd/walk", text: #"{"action":"start"}"#, qos: .atLeastOnce))
        }
        var walking = Set<Int>()
        let deadline = ContinuousClock.now + .seconds(60)
        while walking.count < devices, let message = await journals.next(before: deadline) {
            if message.text.contains(#""walk":{"#), let device = Int(message.topic.split(separator: "/")[1].dropFirst(2)) { walking.insert(device) }
        }
        guard walking.count == devices else { throw ValidationError("only \(walking.count) of \(devices) walks started within 60 s") }
        try await probe.unsubscribe(journals)

        let rss = Mutex<[Double]>([])
        let pid = journal.process.pid
        let sampler = Task {
            while !Task.isCancelled {
                if let value = ProcessMemory.residentMiB(pid: pid) { rss.withLock { $0.append(value) } }
                try? await Task.sleep(for: .seconds(5))
            }
        }
        defer { sampler.cancel() }

        let speed = photoEvery / interval
        let start = Date().timeIntervalSince1970
        let clock = ContinuousClock()
        let began = clock.now
        var lastIndex = [Int](repeating: 0, count: devices)
        var tick = 0
        var sent = 0
        while true {
            let t = Double(tick) * fixEvery
            if t > duration { break }
            try? await Task.sleep(until: began.advanced(by: .milliseconds(Int64(t * 1_000))), clock: clock)
            let now = Date().timeIntervalSince1970
            let stamp = Self.iso(now)
            for device in 0..<devices {
                let offset = Double(device) * interval / Double(devices)
                guard t >= offset else { continue }
                let north = (t - offset) * speed
                let latitude = 10 + Double(device) * 0.01 + north / 111_194.9
                try await probe.publish(
                    BusMessage(
                        topic: "stepcompass/jl\(device)/location",
                        text: #"{"timestamp":"\#(stamp)","latitude":\#(latitude),"longitude":20,"horizontalAccuracy":5}"#, qos: .atLeastOnce))
                sent += 1
                let index = Int((north + 1e-9) / photoEvery)
                if index > lastIndex[device] {
                    let crossed = (lastIndex[device] + 1)...index
                    answers.state.withLock { state in for point in crossed { state.reached[device, default: [:]][point] = now } }
                    lastIndex[device] = index
                }
            }
            tick += 1
        }
        let walked = Date().timeIntervalSince1970 - start
        let reachedCount = answers.state.withLock { $0.reached.values.reduce(0) { $0 + $1.count } }
        let drainEnd = ContinuousClock.now + .seconds(drain)
        var answeredCount = 0
        while ContinuousClock.now < drainEnd {
            answeredCount = answers.state.withLock { state in
                state.reached.reduce(0) { sum, entry in sum + entry.value.keys.filter { state.answered[entry.key]?[$0] != nil }.count }
            }
            if answeredCount >= reachedCount { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        sampler.cancel()
        if let value = ProcessMemory.residentMiB(pid: pid) { rss.withLock { $0.append(value) } }

        let state = answers.state.withLock { $0 }
        var latencies: [Double] = []
        for (device, points) in state.reached {
            for (point, reached) in points {
                if let answered = state.answered[device]?[point] { latencies.append(answered - reached) }
            }
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        let memory = rss.withLock { $0 }
        let third = max(1, memory.count / 3)
        let early = memory.prefix(third).reduce(0, +) / Double(third)
        let late = memory.suffix(third).reduce(0, +) / Double(third)
        let peak = memory.max() ?? .nan
        let searches = log.searches.withLock { $0.count }
        let flickrCalls = log.flickrSearches.withLock { $0 }
        let bucketCapacity = Double(max(1, min(60, flickrCallsPerHour / 60)))
        let allowance = bucketCapacity + Double(flickrCallsPerHour) / 3_600 * (walked + drain)

        let target = Double(devices) / interval
        print(
            "journal-load: \(devices) devices walking \(Int(walked)) s, a photo point every \(Int(interval)) s each, photo server latency \(latency) ms"
        )
        print(
            String(
                format: "  target (issue 14): %.2f photo points/s (500 devices, one every 70 s), 50 ms latency; this run: %.2f points/s offered",
                500.0 / 70, target))
        print(
            "  fixes sent: \(sent); points reached: \(reachedCount); answered: \(answeredCount) (found \(state.found), none \(state.none)); pending messages (retries): \(state.pending)"
        )
        print(
            String(
                format:
                    "  reach → photo message: p50 %.0f ms, p99 %.0f ms, max %.0f ms (from the fix that crossed the point; the route takes a point every 5 m, so up to %.0f s of walking is included)",
                percentile(0.5) * 1_000, percentile(0.99) * 1_000, (latencies.last ?? .nan) * 1_000, (5 / (photoEvery / interval)).rounded(.up)))
        print("  photo service calls: Wikimedia searches \(searches), Flickr searches \(flickrCalls.count)")
        if flickr {
            print(
                String(
                    format: "  Flickr allowance for %.0f s at %d/h (burst %.0f): %.0f calls; made %d", walked + drain, flickrCallsPerHour,
                    bucketCapacity, allowance, flickrCalls.count))
        }
        print(
            String(
                format: "  journal memory (RSS): first third %.1f MB, last third %.1f MB, peak %.1f MB (%d samples)", early, late, peak, memory.count)
        )
        let missed = reachedCount - answeredCount
        let rateHeld = !flickr || Double(flickrCalls.count) <= allowance + 1
        let bounded = peak < 300 && late <= early * 1.5 + 10
        let kept = flickr ? true : missed == 0
        let points =
            flickr
            ? "\(answeredCount) answered, \(missed) queued behind the Flickr allowance (looked up while their walks go on)"
            : (missed == 0 ? "all answered" : "\(missed) not answered")
        print("  verdict: points \(points), rate \(rateHeld ? "held" : "EXCEEDED"), memory \(bounded ? "bounded" : "GREW")")
        return kept && rateHeld && bounded
    }

    static func iso(_ time: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: time))
    }
}
