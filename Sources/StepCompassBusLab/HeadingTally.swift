/// What the load tool saw of the compass service's headings: how many, per device and per second, and how far
/// each lagged behind the sample it reports (receive time − heading timestamp, both on the wall clock).
struct HeadingTally: Sendable {
    /// The headings received in one second of the run.
    struct Second: Sendable {
        var count = 0
        var latencies: [Double] = []
    }

    /// Unix seconds at which publishing started: second 0.
    let start: Double
    var total = 0
    var unreadable = 0
    var perDevice: [String: (count: Int, lastTimestamp: Double)] = [:]
    var seconds: [Int: Second] = [:]

    init(start: Double) {
        self.start = start
    }

    /// Records one heading.
    mutating func record(device: String, timestamp: Double?, receivedAt now: Double) {
        total += 1
        guard let timestamp else {
            unreadable += 1
            return
        }
        let entry = perDevice[device] ?? (0, -.infinity)
        perDevice[device] = (entry.count + 1, max(entry.lastTimestamp, timestamp))
        let second = Int((now - start).rounded(.down))
        seconds[second, default: Second()].count += 1
        seconds[second, default: Second()].latencies.append(now - timestamp)
    }

    /// Latencies of the seconds in a range, sorted.
    func latencies(in range: Range<Int>) -> [Double] {
        range.flatMap { seconds[$0]?.latencies ?? [] }.sorted()
    }

    /// Headings received in the seconds of a range.
    func count(in range: Range<Int>) -> Int {
        range.reduce(0) { $0 + (seconds[$1]?.count ?? 0) }
    }
}

extension Array where Element == Double {
    /// The value at a fraction (0...1) of a sorted array, or NaN when empty.
    func percentile(_ fraction: Double) -> Double {
        guard !isEmpty else { return .nan }
        return self[Swift.min(count - 1, Swift.max(0, Int((Double(count - 1) * fraction).rounded())))]
    }
}
