import ArgumentParser
import Foundation
import StepCompassContract

/// `stepcompass-buslab codec-bench`: the hand-written hot-path codecs against Foundation used well, in the same run.
///
/// The project keeps a hand-written codec only where it is faster by a margin that matters at 50,000 messages a
/// second; this prints the figures that decide it: the IMU payload (`IMUPayload.parseFast` against one reused
/// `JSONDecoder`, and against `PayloadDecoder`'s checked path), and the timestamp (`Timestamp.format`/`parse`
/// against Foundation's ISO 8601 format style).
struct CodecBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codec-bench",
        abstract: "Time the hand-written IMU and timestamp codecs against Foundation, side by side.")

    @Option(help: "Payloads decoded per codec and round.") var count = 200_000
    @Option(help: "Rounds (the best round of each codec is reported).") var rounds = 3

    func run() throws {
        let payloads: [Data] = (0..<1_024).map { index in
            let t = 1_795_341_600.0 + Double(index) * 0.02
            let stamp = Timestamp.format(secondsSince1970: t)
            let a = Double(index % 97) * 0.013
            return Data(
                #"{"timestamp":"\#(stamp)","accel":[\#(0.31 + a),\#(-0.12 - a),9.7\#(index % 10)],"mag":[\#(21.4 - a),\#(1.6 + a),-43.9],"gyro":[0.0\#(index % 7),-0.01,0.002]}"#
                    .utf8)
        }
        let reused = JSONDecoder()
        let checked = PayloadDecoder()
        var sink = 0.0
        func best(_ body: () throws -> Void) rethrows -> Double {
            var fastest = Double.infinity
            for _ in 0..<rounds {
                let start = ContinuousClock.now
                try body()
                let elapsed = ContinuousClock.now - start
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                fastest = min(fastest, seconds / Double(count) * 1e9)
            }
            return fastest
        }
        let fast = best {
            for index in 0..<count { sink += IMUPayload.parseFast(payloads[index & 1_023], maximumSize: 65_536)?.accel.x ?? 0 }
        }
        let foundation = try best {
            for index in 0..<count { sink += try reused.decode(IMUPayload.self, from: payloads[index & 1_023]).accel.x }
        }
        let checkedPath = try best {
            for index in 0..<count { sink += try checked.decode(IMUPayload.self, from: payloads[index & 1_023]).accel.x }
        }
        let dates = (0..<1_024).map { Date(timeIntervalSince1970: 1_795_341_600 + Double($0) * 0.0197) }
        let stamps = dates.map(Timestamp.format)
        var length = 0
        let formatFast = best { for index in 0..<count { length += Timestamp.format(dates[index & 1_023]).utf8.count } }
        let formatFoundation = best {
            for index in 0..<count { length += Timestamp.formatWithFoundation(dates[index & 1_023]).utf8.count }
        }
        let parseFast = best { for index in 0..<count { sink += Timestamp.parse(stamps[index & 1_023])?.timeIntervalSince1970 ?? 0 } }
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        let parseFoundation = best {
            for index in 0..<count { sink += (try? style.parse(stamps[index & 1_023]))?.timeIntervalSince1970 ?? 0 }
        }
        func line(_ name: String, _ ours: Double, _ anchor: Double, _ anchorName: String) {
            let rate = 1e9 / ours / 1_000
            print(
                String(
                    format: "%-34@ %8.0f ns  (%6.0f k/s)   %@ %8.0f ns   ratio %.1fx",
                    name as NSString, ours, rate, anchorName as NSString, anchor, anchor / ours))
        }
        print("codec-bench: \(count) calls per codec, best of \(rounds) rounds, one core")
        line("IMU payload, hand-written", fast, foundation, "JSONDecoder reused")
        line("IMU payload, hand-written", fast, checkedPath, "PayloadDecoder (checked)")
        line("timestamp format, hand-written", formatFast, formatFoundation, "ISO8601FormatStyle")
        line("timestamp parse, hand-written", parseFast, parseFoundation, "ISO8601FormatStyle")
        if sink.isNaN || length < 0 { print("") }  // keeps the work observable
    }
}
