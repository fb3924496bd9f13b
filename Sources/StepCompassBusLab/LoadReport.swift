import Foundation

/// The figures of one compass load run, and the verdict: did the service keep up?
///
/// It kept up when the load tool achieved at least 95 % of the offered IMU rate, each device got at least 90 % of
/// the heading rate it should (`min(max-rate, rate)`), the heading latency stayed bounded (99th percentile of the
/// last third under 1 s) and did not grow (the last third's median within 0.25 s of the first third's), every
/// device's last heading caught up with its last sample within 1 s after the drain, and the service still ran.
struct LoadReport {
    var devices: Int
    var rate: Double
    var duration: Double
    var warmup: Double
    var maxRate: Double
    var published: Int
    var worstLateness: Double
    var publishSeconds: Double
    var lastSampleTime: Double
    var atStop: HeadingTally
    var final: HeadingTally
    var serviceCPU: Double?
    var loadToolCPU: Double?
    var brokerCPU: Double?
    var coalesced: Bool
    /// Whether the samples were written a tick at a time (``RawMQTTClient``) rather than one libmosquitto
    /// publish each.
    var burst: Bool
    var drain: Double
    var machineBusy: Double?
    var serviceAlive: Bool
    /// CPU seconds per sample of mosquitto_sub receiving the same stream (the C receive-only anchor).
    var anchorCPUPerSample: Double?
    /// The goal: the service's CPU per sample at most this many times the anchor's.
    var anchorGoal: Double

    /// The compass's CPU seconds per sample published.
    var serviceCPUPerSample: Double? { serviceCPU.map { $0 / Double(max(1, published)) } }
    /// The compass's CPU per sample over the anchor's.
    var anchorRatio: Double? {
        guard let service = serviceCPUPerSample, let anchor = anchorCPUPerSample, anchor > 0 else { return nil }
        return service / anchor
    }
    var withinAnchorGoal: Bool { anchorRatio.map { $0 <= anchorGoal } ?? false }

    var offered: Double { Double(devices) * rate }
    var achieved: Double { Double(published) / max(1e-9, publishSeconds) }
    var measured: Range<Int> { Int(warmup.rounded(.up))..<Int(duration.rounded(.down)) }
    var measuredSeconds: Double { Double(max(1, measured.count)) }
    var headingRate: Double { Double(final.count(in: measured)) / measuredSeconds }
    var perDeviceRate: Double { headingRate / Double(devices) }
    var expectedPerDeviceRate: Double { min(maxRate, rate) }
    var latencies: [Double] { final.latencies(in: measured) }

    var thirds: (first: [Double], last: [Double]) {
        let third = max(1, measured.count / 3)
        return (
            final.latencies(in: measured.lowerBound..<(measured.lowerBound + third)),
            final.latencies(in: (measured.upperBound - third)..<measured.upperBound)
        )
    }

    /// Each device's last sample time minus its last heading's timestamp, sorted (devices never heard: infinity).
    func lags(_ tally: HeadingTally) -> [Double] {
        (1...devices).map { lastSampleTime - (tally.perDevice["load-\($0)"]?.lastTimestamp ?? -.infinity) }.sorted()
    }

    var keptUp: Bool {
        let (first, last) = thirds
        return serviceAlive && achieved >= 0.95 * offered && perDeviceRate >= 0.9 * expectedPerDeviceRate
            && last.percentile(0.99) < 1 && last.percentile(0.5) <= first.percentile(0.5) + 0.25
            && (lags(final).last ?? .infinity) <= 1
    }

    private func ms(_ seconds: Double) -> String { FigureText.milliseconds(seconds, missing: "never") }
    private func number(_ value: Double) -> String { String(format: "%.0f", value) }
    private func cpu(_ seconds: Double?) -> String {
        guard let seconds else { return "n/a" }
        return String(format: "%.0f %% of one core", 100 * seconds / max(1e-9, publishSeconds))
    }

    var text: String {
        let (first, last) = thirds
        let stop = lags(atStop)
        let end = lags(final)
        var lines = [
            "compass load: \(devices) devices × \(number(rate)) Hz for \(number(duration)) s (figures from second \(measured.lowerBound) to \(measured.upperBound)), --max-rate \(number(maxRate))",
            "IMU messages/s: offered \(number(offered)), achieved \(number(achieved)) (\(published) published at QoS 0\(burst ? ", one write per publisher per tick" : coalesced ? ", TCP writes coalesced" : ", TCP_NODELAY"); worst publisher lateness \(ms(worstLateness)))",
            "heading messages/s: \(number(headingRate)) received, \(String(format: "%.2f", perDeviceRate)) per device (expected \(number(expectedPerDeviceRate))); \(final.perDevice.count)/\(devices) devices heard",
            "heading latency (receive − sample time): p50 \(ms(latencies.percentile(0.5))), p99 \(ms(latencies.percentile(0.99))), max \(ms(latencies.last ?? .nan)); first third p50 \(ms(first.percentile(0.5))), last third p50 \(ms(last.percentile(0.5))) p99 \(ms(last.percentile(0.99)))",
            "last heading behind last sample: at stop p50 \(ms(stop.percentile(0.5))), max \(ms(stop.last ?? .nan)); after a \(number(drain)) s drain p50 \(ms(end.percentile(0.5))), max \(ms(end.last ?? .nan))",
            "CPU while publishing: compass service \(cpu(serviceCPU)), broker \(cpu(brokerCPU)), load tool \(cpu(loadToolCPU)), machine \(machineBusy.map { String(format: "%.0f %% busy", 100 * $0) } ?? "n/a")",
        ]
        lines.append(
            "per second (headings, p50/p99 latency): "
                + (0..<Int(duration.rounded(.up))).map { second in
                    let values = (final.seconds[second]?.latencies ?? []).sorted()
                    return "\(second):\(values.count) \(ms(values.percentile(0.5)))/\(ms(values.percentile(0.99)))"
                }.joined(separator: ", "))
        lines.append(
            "CPU per IMU sample: compass \(FigureText.microseconds(serviceCPUPerSample)), mosquitto_sub (C, receive only, the same stream with the compass stopped) \(FigureText.microseconds(anchorCPUPerSample)): \(anchorRatio.map { String(format: "%.2f×", $0) } ?? "n/a") (goal ≤ \(String(format: "%g", anchorGoal))×)"
        )
        lines.append(keptUp ? "KEPT UP" : "DID NOT KEEP UP")
        if anchorRatio == nil {
            lines.append("GOAL NOT CHECKED: the anchor (mosquitto_sub) or the compass's CPU could not be measured")
        } else if !withinAnchorGoal {
            lines.append("GOAL MISSED: CPU per sample above \(String(format: "%g", anchorGoal))× the C receive-only client's")
        }
        return lines.joined(separator: "\n")
    }

    var json: String {
        let (_, last) = thirds
        let fields: [(String, String)] = [
            ("devices", "\(devices)"), ("rate", "\(rate)"), ("duration", "\(duration)"),
            ("offered", number(offered)), ("achieved", number(achieved)), ("headingRate", number(headingRate)),
            ("perDeviceRate", String(format: "%.3f", perDeviceRate)),
            ("latencyP50", String(format: "%.4f", latencies.percentile(0.5))),
            ("latencyP99", String(format: "%.4f", latencies.percentile(0.99))),
            ("lastThirdP99", String(format: "%.4f", last.percentile(0.99))),
            ("finalLagMax", String(format: "%.4f", min(1e9, lags(final).last ?? 1e9))),
            ("serviceCPU", serviceCPU.map { String(format: "%.3f", $0 / max(1e-9, publishSeconds)) } ?? "null"),
            ("brokerCPU", brokerCPU.map { String(format: "%.3f", $0 / max(1e-9, publishSeconds)) } ?? "null"),
            ("loadToolCPU", loadToolCPU.map { String(format: "%.3f", $0 / max(1e-9, publishSeconds)) } ?? "null"),
            ("coalesced", "\(coalesced)"), ("burstPublishers", "\(burst)"),
            ("keptUp", "\(keptUp)"),
            ("serviceCPUPerSample", serviceCPUPerSample.map { String(format: "%.8f", $0) } ?? "null"),
            ("anchorCPUPerSample", anchorCPUPerSample.map { String(format: "%.8f", $0) } ?? "null"),
            ("anchorRatio", anchorRatio.map { String(format: "%.3f", $0) } ?? "null"), ("withinAnchorGoal", "\(withinAnchorGoal)"),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
