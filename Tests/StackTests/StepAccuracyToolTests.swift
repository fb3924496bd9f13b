import BusTesting
import Foundation
import StepDetection
import Testing
import WalkerSimulation

/// `stepcompass-buslab step-accuracy` on exports written here: a phyphox export of a simulated pocket walk
/// (accelerometer only), with a truth file as a user writes one.
@Suite("step-accuracy counts a phone export as the stack does and checks it against the truth")
struct StepAccuracyToolTests {
    /// A phyphox "Acceleration with g" export of 40 s of a walker with the phone in a trouser pocket; returns its
    /// folder, the count the detector gets from the same numbers and how many of them the end of the samples released
    /// (the step held for confirmation).
    private static func pocketWalk(truth: (Int) -> String?) throws -> (folder: URL, detected: Int, atEnd: Int) {
        var configuration = WalkerConfiguration()
        configuration.carry = .pocket
        configuration.imuRate = 100
        configuration.seed = 3
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: ConstantGeomagneticField.munich)
        var rows = [#""Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)""#]
        var detector = StepDetector()
        for event in walker.advance(to: 40) {
            guard case .imu(let t, let accel, _, _) = event else { continue }
            let fields = [t, accel[0], accel[1], accel[2]].map { String(format: "%.6f", $0) }
            rows.append(fields.joined(separator: ","))
            let values = fields.map { Double($0)! }
            _ = detector.add(time: values[0], acceleration: SIMD3(values[1], values[2], values[3]))
        }
        let atEnd = detector.finish().count
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("step-accuracy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("Accelerometer.csv"))
        if let text = truth(detector.steps) {
            try Data(text.utf8).write(to: folder.appendingPathComponent("truth"))
        }
        return (folder, detector.steps, atEnd)
    }

    /// Runs the tool and returns its exit status and output.
    private static func run(_ arguments: [String]) async throws -> (status: Int32?, output: String) {
        let process = try await ChildProcess(executable: ServiceExecutable(name: "stepcompass-buslab").path, arguments: ["step-accuracy"] + arguments)
        let status = await process.waitForExit(timeout: .seconds(60))
        let output = (try? String(contentsOf: process.outputFile, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: process.outputFile)
        return (status, output)
    }

    @Test("a recording counted right meets the targets (exit 0) and says how it was counted")
    func countedRight() async throws {
        // 0.75 m: the simulated walker's mean step length.
        let (folder, detected, _) = try Self.pocketWalk { "steps=\($0)\ncarry=trouser pocket\ndistance_m=\(Double($0) * 0.75)\n" }
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(detected > 40)
        let (status, output) = try await Self.run([folder.path])
        #expect(status == 0, "\(output)")
        #expect(output.contains("(trouser pocket): 100 Hz"), "\(output)")
        #expect(output.contains("true \(detected), counted \(detected) (detector), error +0"), "\(output)")
        #expect(output.contains("steps: 0 miscounted of \(detected) true (0.0 %, target at most 2 %): met"), "\(output)")
        #expect(output.contains("distance: worst"), "\(output)")
    }

    @Test("--trace writes each sample's signal and the steps it released, as many as counted")
    func trace() async throws {
        let (folder, detected, atEnd) = try Self.pocketWalk { "steps=\($0)\n" }
        let traces = FileManager.default.temporaryDirectory.appendingPathComponent("step-trace-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: traces)
        }
        let (status, output) = try await Self.run([folder.path, "--trace", traces.path])
        #expect(status == 0, "\(output)")
        let text = try String(contentsOf: traces.appendingPathComponent("\(folder.lastPathComponent).csv"), encoding: .utf8)
        let rows = text.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        // Every sample of 40 s at 100 Hz, both ends included, and a row for the end when it released the held step.
        #expect(rows.count == 4_001 + (atEnd > 0 ? 1 : 0))
        let released = rows.reduce(0) { $0 + (Int($1[3]) ?? 0) }
        let times = rows.flatMap { $0[4].split(separator: " ").compactMap { Double($0) } }
        #expect(released == detected)
        #expect(times.count == detected)
        #expect(times == times.sorted())
    }

    @Test("a miscount beyond 5 % and 2 steps, a recording without a truth file: exit 3, each named")
    func missedTargets() async throws {
        let (over, detected, _) = try Self.pocketWalk { "steps=\($0 + 10)\n" }
        let (bare, _, _) = try Self.pocketWalk { _ in nil }
        defer {
            try? FileManager.default.removeItem(at: over)
            try? FileManager.default.removeItem(at: bare)
        }
        let (status, output) = try await Self.run([over.path, bare.path])
        #expect(status == 3, "\(output)")
        #expect(output.contains("true \(detected + 10), counted \(detected) (detector), error -10"), "\(output)")
        #expect(output.contains("OVER THE LIMIT"), "\(output)")
        #expect(output.contains("over 5 % and 2 steps: \(over.lastPathComponent)"), "\(output)")
        #expect(output.contains("no truth file '\(bare.path)/truth'"), "\(output)")
    }
}
