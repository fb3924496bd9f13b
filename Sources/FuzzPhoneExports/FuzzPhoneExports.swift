import Foundation
import FuzzSupport
import PhoneFormats
import StepCompassContract

/// libFuzzer target: the phone exports the simulator replays (`stepcompass-sensors --replay`): Sensor Logger's CSV
/// export and phyphox's, folders of CSV files.
///
/// The input is a folder as `head` prints several files: each file starts with a line `==> NAME <==` (such as
/// `==> Accelerometer.csv <==` or `==> meta/time.csv <==`); an input without such a line is tried as each of
/// `Accelerometer.csv`, `Location.csv` (Sensor Logger) and `Raw Data.csv` (phyphox).
///
/// Properties: decoding never traps and only throws `PhoneFormatError`; a recording's samples are in time order; and
/// what the replay publishes for them (through the same pipeline as the bridge) is read by the services: the IMU
/// fast path takes every IMU payload, and locations decode.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    Fuzz.run(start, count) { bytes in
        for files in ExportProperties.folders(String(decoding: bytes, as: UTF8.self)) {
            ExportProperties.check(files)
        }
    }
}

enum ExportProperties {
    static let decoder = PayloadDecoder()

    /// The folders an input stands for.
    static func folders(_ text: String) -> [[String: String]] {
        var files: [String: String] = [:]
        var name: String?
        var contents: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("==> "), line.hasSuffix(" <=="), line.count >= 8 {
                if let name { files[name] = contents.joined(separator: "\n") }
                name = String(line.dropFirst(4).dropLast(4))
                contents = []
            } else {
                contents.append(line)
            }
        }
        guard let name else { return ["Accelerometer.csv", "Location.csv", "Raw Data.csv"].map { [$0: text] } }
        files[name] = contents.joined(separator: "\n")
        return [files]
    }

    static func check(_ files: [String: String]) {
        for recording in [
            try? PhoneRecording.decode(files: files), try? SensorLoggerExport.decode(files: files),
            try? PhyphoxExport.decode(files: files, clockStart: 1_732_270_530),
        ] {
            guard let recording else { continue }
            Fuzz.require(recording.skippedRows >= 0, "\(recording.skippedRows) rows skipped")
            var previous = -Double.infinity
            for sample in recording.samples {
                Fuzz.require(sample.time >= previous, "samples out of time order: \(sample.time) after \(previous)")
                previous = sample.time
            }
            var pipeline = PhoneDevicePipeline()
            for output in pipeline.add(recording.samples) + pipeline.flush() { publishable(output) }
        }
    }

    /// What the replay publishes for an output (over `ContractPayloads`, as the bridge) is what the services read.
    static func publishable(_ output: PhoneOutput) {
        switch output {
        case .acceleration(let sample):
            Fuzz.require(sample.timestamp.isFinite, "an acceleration sample has no time")
        case .imu(let sample):
            guard let json = ContractPayloads.imu(sample) else { return }  // a non-finite number: left out
            Fuzz.require(IMUPayload.parseFast(Data(json.utf8), maximumSize: decoder.maximumSize) != nil, "the IMU payload \(json) is not read")
        case .location(let fix):
            guard let json = ContractPayloads.location(fix) else { return }
            Fuzz.require((try? decoder.decode(LocationMessage.self, from: Data(json.utf8))) != nil, "the location \(json) does not decode")
        case .steps(let count):
            let json = ContractPayloads.steps(count.steps, source: "pedometer", time: count.timestamp)
            Fuzz.require(StepsMessage.parseFast(Data(json.utf8), maximumSize: decoder.maximumSize) != nil, "the steps \(json) are not read")
        }
    }
}
