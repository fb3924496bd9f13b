/// Reads series out of the Prometheus text format (what `GET /metrics` serves, or
/// `ServiceMetrics.registry!.emitToString()` in process), for tests.
///
/// The registry is the process's: tests that run in parallel share it, so a test looks at label sets of its own
/// (a service name or topic of its own) or at series that only grow.
package struct PrometheusText: Sendable {
    /// One series: its name, labels and value.
    package struct Sample: Sendable {
        package var name: String
        package var labels: [String: String]
        package var value: Double
    }

    package let samples: [Sample]

    package init(_ text: String) {
        samples = text.split(separator: "\n").compactMap(Self.parse)
    }

    /// The sum of the series named `name` whose labels include `labels`; nil when there is none.
    package func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in
            sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
        }
        return matching.isEmpty ? nil : matching.reduce(0) { $0 + $1.value }
    }

    private static func parse(_ line: Substring) -> Sample? {
        guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
            return nil
        }
        let series = line[..<space]
        guard let brace = series.firstIndex(of: "{") else {
            return Sample(name: String(series), labels: [:], value: value)
        }
        var labels: [String: String] = [:]
        var rest = series[series.index(after: brace)...].dropLast()  // without the closing brace
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].trimmingPrefix(",")
            var cursor = rest.index(after: equals)  // the opening quote
            guard cursor < rest.endIndex, rest[cursor] == "\"" else { return nil }
            cursor = rest.index(after: cursor)
            var text = ""
            while cursor < rest.endIndex, rest[cursor] != "\"" {
                if rest[cursor] == "\\" { cursor = rest.index(after: cursor) }
                if cursor < rest.endIndex { text.append(rest[cursor]) }
                cursor = rest.index(after: cursor)
            }
            labels[String(key)] = text
            rest = cursor < rest.endIndex ? rest[rest.index(after: cursor)...] : rest[rest.endIndex...]
        }
        return Sample(name: String(series[..<brace]), labels: labels, value: value)
    }
}
