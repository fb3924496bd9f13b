import Foundation

/// One subject's figures in one `position-load` run.
struct PositionLoadResult {
    enum Subject: String {
        case relay = "C relay"
        case service = "stepcompass-position"
    }

    var subject: Subject
    var run: Int
    /// Steps messages sent after the warm-up, and how many of them were answered.
    var sentMeasured: Int
    var answeredMeasured: Int
    /// Messages of the whole run (warm-up included) without an answer after the drain.
    var unanswered: Int
    /// Seconds, sorted.
    var latencies: [Double]
    /// CPU seconds of the subject per steps message sent after the warm-up.
    var cpuPerMessage: Double?
    /// How late the sending thread fell behind its schedule at worst, seconds.
    var lateness: Double
    var alive: Bool

    var p50: Double { latencies.percentile(0.5) }
    var p99: Double { latencies.percentile(0.99) }

    var line: String {
        "run \(run) \(subject.rawValue): p50 \(ms(p50)), p99 \(ms(p99)), max \(ms(latencies.last ?? .nan)); CPU \(us(cpuPerMessage)) per message; \(answeredMeasured)/\(sentMeasured) measured messages answered, \(unanswered) unanswered in all; sender at worst \(ms(lateness)) late\(alive ? "" : "; the subject EXITED")"
    }
}

/// The medians of the runs, the service's ratio to the relay, and the goals.
struct PositionLoadSummary {
    var results: [PositionLoadResult]
    var maxRatio: Double
    /// Seconds.
    var maxP99: Double
    /// CPU seconds per message.
    var maxCPU: Double

    private func median(_ subject: PositionLoadResult.Subject, _ value: (PositionLoadResult) -> Double?) -> Double {
        results.filter { $0.subject == subject }.compactMap(value).sorted().percentile(0.5)
    }

    var relayP50: Double { median(.relay, { $0.p50 }) }
    var serviceP50: Double { median(.service, { $0.p50 }) }
    var ratio: Double { serviceP50 / relayP50 }

    /// The goals missed (empty: all met).
    var missed: [String] {
        var missed: [String] = []
        let service = results.filter { $0.subject == .service }
        if results.contains(where: { $0.unanswered > 0 || !$0.alive }) {
            missed.append("a subject left messages unanswered or exited")
        }
        if !(ratio <= maxRatio) { missed.append("p50 ratio \(String(format: "%.2f", ratio)) above \(maxRatio)") }
        if let worst = service.map(\.p99).max(), !(worst < maxP99) {
            missed.append("service p99 \(ms(worst)) not under \(ms(maxP99)) in every run")
        }
        if let worst = service.compactMap(\.cpuPerMessage).max(), !(worst < maxCPU) {
            missed.append("service CPU \(us(worst)) per message not under \(us(maxCPU)) in every run")
        }
        return missed
    }

    var met: Bool { missed.isEmpty }

    var text: String {
        [
            "medians of \(results.count / 2) runs: relay p50 \(ms(relayP50)), p99 \(ms(median(.relay, { $0.p99 }))), CPU \(us(median(.relay, { $0.cpuPerMessage }))); service p50 \(ms(serviceP50)), p99 \(ms(median(.service, { $0.p99 }))), CPU \(us(median(.service, { $0.cpuPerMessage })))",
            "service ÷ relay: p50 \(String(format: "%.2f", ratio))× (goal ≤ \(maxRatio)×), CPU \(String(format: "%.2f", median(.service, { $0.cpuPerMessage }) / median(.relay, { $0.cpuPerMessage })))×; goals: p99 < \(ms(maxP99)), CPU < \(us(maxCPU)) per message, in every run",
            met ? "GOALS MET" : "GOALS MISSED: " + missed.joined(separator: "; "),
        ].joined(separator: "\n")
    }
}

private func ms(_ seconds: Double) -> String { FigureText.milliseconds(seconds, decimals: 3) }
private func us(_ seconds: Double?) -> String { FigureText.microseconds(seconds) }
