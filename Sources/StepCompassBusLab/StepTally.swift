/// What the detector load saw of the bridge's `steps` messages (`"source":"detector"`): per device the last count,
/// per second of the run the steps counted and the latency of each message behind the sample that completed its
/// last step (receive time − that sample's timestamp, both on the wall clock).
struct StepTally: Sendable {
    struct Second: Sendable {
        var messages = 0
        /// Steps added by the messages of this second (count − the device's previous count).
        var steps = 0
        var latencies: [Double] = []
    }

    /// Unix seconds of tick 0: second 0 of the run.
    let start: Double
    let rate: Double
    let reference: WalkingSamples.Reference
    var messages = 0
    /// Messages that were not the detector's, or not readable.
    var ignored = 0
    /// Messages whose count exceeds what the detector should have found in the samples sent.
    var unexpected = 0
    /// Per device (index): the highest count received (0: none).
    var counts: [Int]
    var seconds: [Int: Second] = [:]

    init(start: Double, rate: Double, reference: WalkingSamples.Reference) {
        self.start = start
        self.rate = rate
        self.reference = reference
        counts = Array(repeating: 0, count: reference.completions.count)
    }

    /// The timestamp of tick `tick`'s samples.
    func time(ofTick tick: Int) -> Double { start + Double(tick) / rate }

    mutating func record(device: Int?, steps: Int?, detector: Bool, receivedAt now: Double) {
        messages += 1
        guard let device, device >= 0, device < counts.count, let steps, detector else {
            ignored += 1
            return
        }
        let completions = reference.completions[device]
        let second = Int((now - start).rounded(.down))
        var bucket = seconds[second] ?? Second()
        bucket.messages += 1
        bucket.steps += max(0, steps - counts[device])
        if steps >= 1, steps <= completions.count {
            bucket.latencies.append(now - time(ofTick: completions[steps - 1]))
        } else {
            unexpected += 1
        }
        seconds[second] = bucket
        counts[device] = max(counts[device], steps)
    }

    func latencies(in range: Range<Int>) -> [Double] {
        range.flatMap { seconds[$0]?.latencies ?? [] }.sorted()
    }

    func steps(in range: Range<Int>) -> Int {
        range.reduce(0) { $0 + (seconds[$1]?.steps ?? 0) }
    }

    /// Samples the bridge had certainly processed: per device, up to the sample that completed its last counted
    /// step (a lower bound, short by at most one step's samples per device).
    var samplesProcessed: Int {
        var total = 0
        for (device, count) in counts.enumerated() where count > 0 {
            total += reference.completions[device][min(count, reference.completions[device].count) - 1] + 1
        }
        return total
    }

    var devicesHeard: Int { counts.filter { $0 > 0 }.count }
}
