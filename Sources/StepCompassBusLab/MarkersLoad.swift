import ArgumentParser
import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import StepCompassContract

/// `stepcompass-buslab markers-load`: the real `stepcompass-markers` on a generated million-feature GeoJSON file,
/// from start to ready, and its peak memory, beside Python's `json.load` of the same file.
struct MarkersLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "markers-load",
        abstract: "Time stepcompass-markers from start to ready on a generated N-feature GeoJSON file; its peak memory.",
        discussion: """
            Writes a GeoJSON FeatureCollection of --features Point features (about 180 bytes each, properties like \
            Config/markers/sample-markers.geojson's plus a category and a city, one in 10,000 without a name so \
            rejected) to a temporary folder, starts a private mosquitto, then --runs times starts the release \
            stepcompass-markers on the file (its default --max-body, 64 MiB, so a larger file proves it is not held \
            to it) and measures the time from the spawn to the retained stepcompass/markers/status saying ready with \
            every accepted marker, and the service's peak resident memory then (VmHWM in /proc/<pid>/status). The \
            anchor is Python's json.load of the same file (scripts/markers-anchors.py json-load), printed beside it \
            with the ratio. The verdict is on the median run against the goals (--goal-seconds, --goal-mib); exit \
            code 3 when a committed threshold (--thresholds, the markersLoad entry) is missed.
            """)

    @Option(help: "Features in the generated FeatureCollection.") var features = 1_000_000
    @Option(help: "Runs, a fresh service each (the verdict is on the median).") var runs = 3
    @Option(help: "Seed of the generated file.") var seed: UInt64 = 42
    @Option(help: "Goal: seconds from the start of the service to ready.") var goalSeconds = 3.0
    @Option(help: "Goal: the service's peak resident memory, MiB.") var goalMib = 300.0
    @OptionGroup var anchorOptions: MarkerAnchorOptions
    @Option(help: "Path of stepcompass-markers (default: next to this executable).") var service: String?
    @Option(help: "Write the generated file to this path and leave it there (default: a temporary folder, removed).")
    var keep: String?

    func validate() throws {
        guard features >= 1, features <= 20_000_000 else { throw ValidationError("--features must be 1...20000000") }
        guard runs >= 1, runs <= 20 else { throw ValidationError("--runs must be 1...20") }
    }

    func run() async throws {
        let path = service ?? BridgeUnderTest.executablePath(nil, executable: "stepcompass-markers")
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError("no stepcompass-markers at \(path): build it (swift build -c release) or pass --service")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepcompass-markers-load-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = keep ?? folder.appendingPathComponent("markers.geojson").path

        let clock = ContinuousClock()
        let writeStart = clock.now
        let document = try MarkerDocumentWriter.write(features: features, seed: seed, to: file)
        let writeSeconds = (clock.now - writeStart).inSeconds
        print(
            String(
                format: "markers-load: %@ features (%@ accepted, %@ rejected), %.1f MB GeoJSON written in %.1f s: %@",
                features.grouped as NSString, document.accepted.grouped as NSString,
                (features - document.accepted).grouped as NSString, Double(document.bytes) / 1e6, writeSeconds, file as NSString))

        let broker = try await MosquittoBrokerProcess.launch()
        var results: [MarkersLoadRun] = []
        var failure: (any Error)?
        for index in 0..<runs {
            do {
                let result = try await Self.measure(
                    path: path, file: file, folder: folder, port: broker.port, accepted: document.accepted, run: index)
                results.append(result)
                print(
                    String(
                        format: "  run %d: ready in %.2f s (online %.2f s, then %.2f s to read, decode and index), peak RSS %.0f MiB, %.0f MiB after",
                        index + 1, result.readySeconds, result.onlineSeconds, result.readySeconds - result.onlineSeconds,
                        result.peakMiB, result.residentMiB))
                if let loaded = result.loadedLine { print("         \(loaded)") }
            } catch {
                failure = error
                break
            }
        }
        await broker.shutdown()
        if let failure { throw failure }

        let anchor = anchorOptions.noAnchor ? nil : await Self.jsonLoadAnchor(options: anchorOptions, file: file)
        let median = MarkersLoadRun.median(results)
        print(
            String(
                format: "  median of %d: ready %.2f s (goal < %.0f s), peak RSS %.0f MiB (goal < %.0f MiB)",
                results.count, median.readySeconds, goalSeconds, median.peakMiB, goalMib))
        var ratio: Double?
        switch anchor {
        case .success(let anchor):
            ratio = anchor.seconds / median.readySeconds
            print(
                String(
                    format:
                        "  anchor: python3 json.load of the same file %.2f s (peak %.0f MiB, %@ features; parse only, no index)   ratio %.2fx (json.load time / our ready time)",
                    anchor.seconds, anchor.peakMiB, anchor.features.grouped as NSString, ratio ?? 0))
        case .failure(let reason):
            print("  anchor: skipped (\(reason.description))")
        case nil:
            print("  anchor: left out (--no-anchor)")
        }
        let goalsMet = median.readySeconds < goalSeconds && median.peakMiB < goalMib
        print(
            goalsMet
                ? String(
                    format: "  GOALS MET (ready %.2f s < %.0f s, peak %.0f MiB < %.0f MiB)", median.readySeconds, goalSeconds, median.peakMiB, goalMib
                )
                : String(
                    format: "  GOALS MISSED (ready %.2f s, goal %.0f s; peak %.0f MiB, goal %.0f MiB)", median.readySeconds, goalSeconds,
                    median.peakMiB, goalMib))

        try MarkerThresholds.verdict(
            path: anchorOptions.thresholds, entry: \.markersLoad, size: \.features, expected: features, unit: "features",
            missed: { checks in
                var missed: [String] = []
                if median.readySeconds > checks.maxReadySeconds {
                    missed.append(String(format: "ready %.2f s > %.2f s", median.readySeconds, checks.maxReadySeconds))
                }
                if median.peakMiB > checks.maxPeakMiB {
                    missed.append(String(format: "peak %.0f MiB > %.0f MiB", median.peakMiB, checks.maxPeakMiB))
                }
                if let minimum = checks.minRatioToJsonLoad, let ratio, ratio < minimum {
                    missed.append(String(format: "ratio to json.load %.2fx < %.2fx", ratio, minimum))
                }
                return missed
            },
            met: { checks in
                String(
                    format: "ready <= %.2f s, peak <= %.0f MiB%@", checks.maxReadySeconds, checks.maxPeakMiB,
                    checks.minRatioToJsonLoad.map { String(format: ", ratio >= %.2fx", $0) } ?? "")
            })
    }

    /// Starts the service on `file`, waits for its ready status with `accepted` markers, reads its peak memory, stops it.
    static func measure(path: String, file: String, folder: URL, port: Int, accepted: Int, run: Int) async throws -> MarkersLoadRun {
        let prefix = "mkload\(UUID().uuidString.prefix(6).lowercased())"
        var logger = Logger(label: "markers-load")
        logger.logLevel = .warning
        let probe = try MosquittoBus(
            configuration: MosquittoConfiguration(host: "127.0.0.1", port: port, clientID: "\(prefix)-probe", cleanStart: true),
            logger: logger)
        try await probe.connect()
        defer { Task { await probe.disconnect() } }
        let statuses = try await probe.subscribe(to: try TopicFilter("\(prefix)/#"), qos: .atLeastOnce)
        let clock = ContinuousClock()
        let start = clock.now
        let process = try await ChildProcess(
            executable: path,
            arguments: ["--source", file, "--cache-dir", "", "--refresh-interval", "3600"],
            environment: [
                "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(port)", "MQTT_CLIENT_ID": "\(prefix)-markers", "TOPIC_PREFIX": prefix,
                "LOG_LEVEL": "info",
            ],
            outputFile: folder.appendingPathComponent("markers-\(run).log"))
        defer { process.signal(SIGKILL) }
        var online: Duration?
        var ready: Duration?
        let deadline = start + .seconds(120)
        while ready == nil, clock.now < deadline {
            guard process.isRunning else {
                throw MarkersFailure(description: "stepcompass-markers exited before it was ready:\n\(process.output.suffix(4_000))")
            }
            guard let message = await statuses.next(timeout: .milliseconds(250)) else { continue }
            let arrived = clock.now - start
            if message.topic == "\(prefix)/services/markers/status",
                String(decoding: message.payload, as: UTF8.self).contains("\"online\"")
            {
                online = online ?? arrived
            } else if message.topic == "\(prefix)/markers/status",
                let status = try? JSONDecoder().decode(MarkersStatusMessage.self, from: message.payload)
            {
                if status.state == MarkersStatusMessage.ready, status.count == accepted {
                    ready = arrived
                } else if status.state == MarkersStatusMessage.failed {
                    throw MarkersFailure(
                        description: "stepcompass-markers failed to load the file: \(status.error?.code ?? "?"): \(status.error?.message ?? "")")
                }
            }
        }
        guard let ready else {
            throw MarkersFailure(description: "stepcompass-markers was not ready within 120 s:\n\(process.output.suffix(4_000))")
        }
        // The peak so far, and again a moment later (anything still running after the status, e.g. the nearby lists).
        var peak = ProcessMemory.peakMiB(pid: process.pid) ?? 0
        try await Task.sleep(for: .milliseconds(300))
        peak = max(peak, ProcessMemory.peakMiB(pid: process.pid) ?? 0)
        let resident = ProcessMemory.residentMiB(pid: process.pid) ?? 0
        process.signal(SIGTERM)
        if await process.waitForExit(timeout: .seconds(10)) == nil { process.signal(SIGKILL) }
        let loaded = process.output.split(separator: "\n").first { $0.contains("markers loaded") }
        return MarkersLoadRun(
            readySeconds: ready.inSeconds, onlineSeconds: (online ?? ready).inSeconds, peakMiB: peak, residentMiB: resident,
            loadedLine: loaded.map { String($0.suffix(400)) })
    }

    /// What the anchor measured.
    struct JSONLoadAnchor {
        var seconds: Double
        var features: Int
        var peakMiB: Double
    }

    /// Runs `script json-load file` with the options' `python`.
    static func jsonLoadAnchor(options: MarkerAnchorOptions, file: String) async -> Result<JSONLoadAnchor, MarkersFailure> {
        if let missing = options.missingScript { return .failure(missing) }
        let (python, script) = (options.python, options.anchorScript)
        guard let object = await PythonAnchor.run(python: python, arguments: [script, "json-load", file], timeout: .seconds(600)),
            let seconds = object["seconds"] as? Double
        else {
            return .failure(MarkersFailure(description: "\(python) \(script) json-load gave no figures"))
        }
        return .success(
            JSONLoadAnchor(seconds: seconds, features: object["features"] as? Int ?? 0, peakMiB: object["peakMiB"] as? Double ?? 0))
    }
}

/// One run of ``MarkersLoad``.
struct MarkersLoadRun {
    var readySeconds: Double
    var onlineSeconds: Double
    var peakMiB: Double
    var residentMiB: Double
    var loadedLine: String?

    /// The run with the median ready time, its peak replaced by the median of all the runs' peaks (an odd count: the
    /// middle ones; else the upper middle ones).
    static func median(_ runs: [MarkersLoadRun]) -> MarkersLoadRun {
        let sorted = runs.sorted { $0.readySeconds < $1.readySeconds }
        var middle = sorted[sorted.count / 2]
        let peaks = runs.map(\.peakMiB).sorted()
        middle.peakMiB = peaks[peaks.count / 2]
        return middle
    }
}

/// What a markers command could not do, in words (the service did not load the file: it failed, exited or took too
/// long; an anchor could not run). Thrown, it exits with code 1, not as a usage error.
struct MarkersFailure: Error, CustomStringConvertible {
    var description: String
}

/// The Python anchor and committed thresholds options of `markers-load` and `markers-bench`.
struct MarkerAnchorOptions: ParsableArguments {
    @Option(help: "Committed thresholds (JSON; the command's entry, markersLoad or markersBench); a missed one exits 3.")
    var thresholds = "Benchmarks/markers-thresholds.json"
    @Option(help: "The anchors' script.") var anchorScript = "scripts/markers-anchors.py"
    @Option(help: "The Python interpreter for the anchor.") var python = "python3"
    @Flag(help: "Leave out the Python anchor (markers-load: json.load; markers-bench: scipy's cKDTree).") var noAnchor = false

    /// Why the anchor cannot run when there is no script at ``anchorScript``; nil when it is there.
    var missingScript: MarkersFailure? {
        FileManager.default.fileExists(atPath: anchorScript)
            ? nil : MarkersFailure(description: "no \(anchorScript); run from the repository's root or pass --anchor-script")
    }
}

/// Runs an anchor script and reads the JSON object on its last line.
enum PythonAnchor {
    static func run(python: String, arguments: [String], timeout: Duration) async -> [String: Any]? {
        let executable = python.contains("/") ? python : Self.which(python)
        guard let executable,
            let process = try? await ChildProcess(executable: executable, arguments: arguments)
        else { return nil }
        defer { try? FileManager.default.removeItem(at: process.outputFile) }
        guard await process.waitForExit(timeout: timeout) == 0 else {
            process.signal(SIGKILL)
            let output = process.output.trimmingCharacters(in: .whitespacesAndNewlines)
            if !output.isEmpty { print("  anchor output: \(output.suffix(600))") }
            return nil
        }
        guard let line = process.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// The first `name` on PATH.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// The committed thresholds that `make benchmark` checks (Benchmarks/markers-thresholds.json).
struct MarkerThresholds: Decodable {
    struct Load: Decodable {
        var features: Int
        var maxReadySeconds: Double
        var maxPeakMiB: Double
        var minRatioToJsonLoad: Double?
    }

    struct Bench: Decodable {
        var points: Int
        var minNearest3PerSecond: Double
        var maxBuildSeconds: Double
        var minRatioToCKDTree: Double?
    }

    var markersLoad: Load?
    var markersBench: Bench?

    /// Checks a run's figures against `entry` of the thresholds at `path` and prints the verdict: not checked when the
    /// file or its entry is not there or the entry is for another `size` than `expected` (in `unit`s), else THRESHOLDS
    /// MET with `met`'s limits or THRESHOLDS MISSED with `missed`'s misses.
    /// - Throws: `ExitCode(3)` when a threshold is missed; when the file is there but is not valid.
    static func verdict<Entry>(
        path: String, entry: KeyPath<MarkerThresholds, Entry?>, size: KeyPath<Entry, Int>, expected: Int, unit: String,
        missed: (Entry) -> [String], met: (Entry) -> String
    ) throws {
        guard let checks = try load(path: path)?[keyPath: entry] else {
            print("  thresholds: none at \(path); not checked")
            return
        }
        guard checks[keyPath: size] == expected else {
            print("  thresholds: \(path) is for \(checks[keyPath: size].grouped) \(unit); not checked")
            return
        }
        let misses = missed(checks)
        if misses.isEmpty {
            print("  THRESHOLDS MET (\(path): \(met(checks)))")
        } else {
            print("  THRESHOLDS MISSED (\(path)): \(misses.joined(separator: "; "))")
            throw ExitCode(3)
        }
    }

    /// The thresholds at `path`, nil when there is no such file.
    /// - Throws: when the file is there but is not valid.
    static func load(path: String) throws -> MarkerThresholds? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(MarkerThresholds.self, from: data)
        } catch {
            throw ValidationError("\(path) is not a valid thresholds file: \(error)")
        }
    }
}

extension Int {
    /// With thousands separators: 1,000,000.
    var grouped: String {
        let digits = String(Swift.abs(self))
        var out = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return self < 0 ? "-" + out : out
    }
}
