import ArgumentParser
import Foundation
import PhoneFormats
import SensorsService
import StepDetection

/// `stepcompass-buslab step-accuracy`: counts the steps of real phone exports the way the stack does, and compares
/// them with the counts (and distances) the people who walked them wrote down.
struct StepAccuracy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "step-accuracy",
        abstract: "Count the steps of phone exports as the stack does and compare them with the true counts.",
        discussion: """
            Each RECORDING is a phyphox or Sensor Logger CSV export (a folder or a zip), read as \
            `stepcompass-sensors --replay` reads it and assembled as the replay and the bridge assemble it; the \
            bridge's step detector (the same StepDetection library, default settings and --step-length-scale) \
            counts its steps. Where the export has a pedometer (Sensor Logger's Pedometer.csv) the stack publishes \
            the pedometer's count instead; both are shown. The truth comes from a file `truth` in the folder, or \
            `NAME.zip.truth` next to a zip: `key=value` lines, `steps=N` (required), `distance_m=M` (metres, \
            optional), `carry=...` and `platform=...` (shown). Prints one line per recording and the totals against \
            the targets: summed miscount at most 2 % of the true steps, no recording off by more than 5 % or 2 \
            steps, distance within 8 %. Exit code 3 when a target is missed.
            """)

    @Argument(help: "Phone exports (folders or zips), each with its truth file.") var recordings: [String]
    @Option(help: "Step-length scale of the detector's Weinberg model (the bridge's --step-length-scale).")
    var stepLengthScale = 1.0
    @Flag(help: "Print one JSON line per recording instead of the table.") var json = false
    @Option(
        help: """
            Write, for each recording, FOLDER/NAME.csv: every acceleration sample's time (s from the first), |a| \
            (m/s²), the detector's band-passed signal, and the steps it released at that sample with their times.
            """)
    var trace: String?

    func validate() throws {
        guard !recordings.isEmpty else { throw ValidationError("give at least one recording") }
        guard stepLengthScale.isFinite, stepLengthScale > 0.2, stepLengthScale < 5 else {
            throw ValidationError("--step-length-scale must be in (0.2, 5)")
        }
    }

    func run() throws {
        var results: [StepAccuracyResult] = []
        var failures = 0
        for path in recordings {
            let url = URL(fileURLWithPath: path)
            do {
                let truth = try StepAccuracyTruth.read(for: url)
                let recording = try PhoneExport.read(url)
                let name = url.deletingPathExtension().lastPathComponent
                let traceFile = trace.map { URL(fileURLWithPath: $0).appendingPathComponent("\(name).csv") }
                let result = try StepAccuracyResult.count(
                    recording, name: name, truth: truth, stepLengthScale: stepLengthScale, trace: traceFile)
                results.append(result)
                print(json ? result.jsonLine : result.line)
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
            }
        }
        let totals = StepAccuracyTotals(results)
        if !json { print(totals.summary) }
        if failures > 0 || !totals.targetsMet { throw ExitCode(3) }
    }
}

/// The truth a person wrote down for a recording.
struct StepAccuracyTruth: Sendable {
    var steps: Int
    var distance: Double?
    var carry: String?
    var platform: String?

    /// Reads `truth` in the folder `recording`, or `recording.truth` next to a file.
    static func read(for recording: URL) throws -> StepAccuracyTruth {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: recording.path, isDirectory: &isDirectory)
        let file =
            isDirectory.boolValue
            ? recording.appendingPathComponent("truth")
            : recording.deletingLastPathComponent().appendingPathComponent(recording.lastPathComponent + ".truth")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ValidationError("no truth file '\(file.path)' (key=value lines, steps=N required)")
        }
        var values: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            values[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        guard let steps = values["steps"].flatMap({ Int($0) }), steps >= 0 else {
            throw ValidationError("'\(file.path)' has no steps=N line with a count of 0 or more")
        }
        let distance = values["distance_m"].flatMap(Double.init)
        if let distance, !(distance.isFinite && distance > 0) {
            throw ValidationError("'\(file.path)': distance_m must be a positive number of metres")
        }
        return StepAccuracyTruth(steps: steps, distance: distance, carry: values["carry"], platform: values["platform"])
    }
}

/// One recording counted as the stack counts it.
struct StepAccuracyResult: Sendable {
    var name: String
    var truth: StepAccuracyTruth
    /// Steps the stack publishes: the pedometer's last count when the export has one, else the detector's.
    var counted: Int
    var source: String
    var detected: Int
    var pedometer: Int?
    /// Metres: the detector's distance, or for a pedometer its count times the mean detected step length once the
    /// detector has counted 10 steps (the bridge's rule; nil before).
    var distance: Double?
    var seconds: Double
    var rate: Double

    var error: Int { counted - truth.steps }
    /// Whether the count is within 5 % or 2 steps, whichever is larger.
    var withinLimit: Bool { Double(abs(error)) <= max(0.05 * Double(truth.steps), 2) }
    var distanceError: Double? {
        guard let distance, let measured = truth.distance else { return nil }
        return (distance - measured) / measured
    }

    /// Assembles `recording` as the replay does and runs the detector over every acceleration sample.
    static func count(
        _ recording: PhoneRecording, name: String, truth: StepAccuracyTruth, stepLengthScale: Double, trace: URL? = nil
    ) throws -> StepAccuracyResult {
        var configuration = StepDetectorConfiguration.defaults
        configuration.stepLength.scale = stepLengthScale
        var detector = StepDetector(configuration: configuration)
        var assembler = IMUAssembler(initialMagnetometer: recording.initialMagnetometer())
        let total = recording.hasTotalAcceleration
        var pedometer: Int?
        var accelerationTimes: (first: Double, last: Double, count: Int)?
        var traceLines = ["time,magnitude,signal,released,step_times"]
        func feed(_ outputs: [PhoneOutput]) {
            for output in outputs {
                let time: Double
                let a: Vector3
                switch output {
                case .imu(let sample): (time, a) = (sample.timestamp, sample.accel)
                case .acceleration(let sample): (time, a) = (sample.timestamp, sample.accel)
                case .steps(let count):
                    pedometer = count.steps
                    continue
                case .location: continue
                }
                let released = detector.add(time: time, acceleration: a.simd)
                accelerationTimes = (accelerationTimes?.first ?? time, time, (accelerationTimes?.count ?? 0) + 1)
                if trace != nil, let first = accelerationTimes?.first {
                    let steps = released.map { String(format: "%.3f", $0.time - first) }.joined(separator: " ")
                    traceLines.append(
                        String(format: "%.4f,%.4f,%.4f,%d,", time - first, a.magnitude, detector.signal, released.count) + steps)
                }
            }
        }
        var index = 0
        while index < recording.samples.count {
            let end = min(index + 4096, recording.samples.count)
            feed(assembler.add(recording.assemblyInput(index..<end, hasTotalAcceleration: total)))
            index = end
        }
        feed(assembler.flush())
        // The recording ends: the step held for confirmation is judged, as a phone that stops sending.
        let ending = detector.finish()
        if trace != nil, let first = accelerationTimes?.first, !ending.isEmpty {
            let steps = ending.map { String(format: "%.3f", $0.time - first) }.joined(separator: " ")
            traceLines.append(String(format: "%.4f,,,%d,", (accelerationTimes?.last ?? first) - first, ending.count) + steps)
        }
        if let trace {
            try FileManager.default.createDirectory(at: trace.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((traceLines.joined(separator: "\n") + "\n").utf8).write(to: trace)
        }
        let seconds = accelerationTimes.map { $0.last - $0.first } ?? 0
        let rate = seconds > 0 ? Double((accelerationTimes?.count ?? 1) - 1) / seconds : 0
        var result = StepAccuracyResult(
            name: name, truth: truth, counted: detector.steps, source: "detector", detected: detector.steps, pedometer: pedometer,
            distance: detector.distance, seconds: seconds, rate: rate)
        if let pedometer {
            result.counted = pedometer
            result.source = "pedometer"
            result.distance = detector.meanStepLength.map { Double(pedometer) * $0 }
        }
        return result
    }

    var line: String {
        let label = [truth.carry, truth.platform].compactMap { $0 }.joined(separator: ", ")
        let share = truth.steps > 0 ? 100 * Double(error) / Double(truth.steps) : 0
        var text =
            "\(name) (\(label.isEmpty ? "carry not given" : label)): \(Self.fixed(rate, 0)) Hz, \(Self.fixed(seconds, 1)) s; "
            + "true \(truth.steps), counted \(counted) (\(source)), error \(error >= 0 ? "+" : "")\(error) "
            + "(\(share >= 0 ? "+" : "")\(Self.fixed(share, 1)) %)\(withinLimit ? "" : " OVER THE LIMIT"); distance \(distance.map { "\(Self.fixed($0, 1)) m" } ?? "none (under 10 detected steps)")"
        if let measured = truth.distance, let relative = distanceError {
            text += " of \(Self.fixed(measured, 1)) m measured (\(relative >= 0 ? "+" : "")\(Self.fixed(100 * relative, 1)) %)"
        }
        if let pedometer, pedometer != detected { text += " (detector alone: \(detected))" }
        return text
    }

    static func fixed(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

    var jsonLine: String {
        var object: [String: Any] = [
            "recording": name, "trueSteps": truth.steps, "counted": counted, "source": source, "detected": detected,
            "error": error, "withinLimit": withinLimit, "seconds": seconds, "rate": rate,
        ]
        if let distance { object["distance"] = distance }
        if let measured = truth.distance { object["trueDistance"] = measured }
        if let relative = distanceError { object["distanceError"] = relative }
        if let pedometer { object["pedometer"] = pedometer }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// The totals of a set of recordings against the issue's targets.
struct StepAccuracyTotals: Sendable {
    var trueSteps = 0
    var miscounted = 0
    var overLimit: [String] = []
    var distances: [(name: String, error: Double)] = []

    init(_ results: [StepAccuracyResult]) {
        counted = results.count
        for result in results {
            trueSteps += result.truth.steps
            miscounted += abs(result.error)
            if !result.withinLimit { overLimit.append(result.name) }
            if let error = result.distanceError { distances.append((result.name, error)) }
        }
    }

    var miscountShare: Double { trueSteps > 0 ? Double(miscounted) / Double(trueSteps) : 0 }
    var distancesWithin: Bool { distances.allSatisfy { abs($0.error) <= 0.08 } }
    var counted = 0
    var targetsMet: Bool { counted > 0 && miscountShare <= 0.02 && overLimit.isEmpty && distancesWithin }

    var summary: String {
        let fixed = StepAccuracyResult.fixed
        guard counted > 0 else { return "no recording could be counted: targets NOT MET" }
        var lines = [
            "steps: \(miscounted) miscounted of \(trueSteps) true (\(fixed(100 * miscountShare, 1)) %, target at most 2 %): "
                + (miscountShare <= 0.02 ? "met" : "NOT MET"),
            overLimit.isEmpty
                ? "every recording within 5 % or 2 steps" : "over 5 % and 2 steps: \(overLimit.joined(separator: ", "))",
        ]
        if let worst = distances.max(by: { abs($0.error) < abs($1.error) }) {
            lines.append(
                "distance: worst \(worst.name) \(worst.error >= 0 ? "+" : "")\(fixed(100 * worst.error, 1)) % (target within 8 %): "
                    + (distancesWithin ? "met" : "NOT MET"))
        } else {
            lines.append("distance: no recording has a measured distance (distance_m)")
        }
        return lines.joined(separator: "\n")
    }
}
