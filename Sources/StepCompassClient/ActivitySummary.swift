import DashboardKit
public import Foundation
public import ServiceRuntime

/// A device's retained `stepcompass/{device}/activity` message (from the activity service), as the client reads and
/// prints it: the contract's ``ActivityMessage``.
extension ActivityMessage {
    /// Decodes a payload.
    /// - Throws: ``StepCompassClientError/Code/unreadableReply`` when it is not an activity message.
    public init(payload: Data) throws(StepCompassClientError) {
        do {
            self = try JSONDecoder().decode(ActivityMessage.self, from: payload)
        } catch {
            throw StepCompassClientError(
                .unreadableReply,
                "the activity message is not the contract's: \(String(decoding: payload.prefix(200), as: UTF8.self))")
        }
    }

    /// The width of the longest bar in ``lines(device:days:)``.
    public static let barWidth = 30

    /// The report for people: today, the last `days` days with a bar each (scaled to the largest), the band, the
    /// cadence, and the suggestion or the guidance. What the message leaves out is left out (today and the week's
    /// total and mean are worked out from the days, as the dashboard does).
    /// - Parameters:
    ///   - device: The device's id, for the title.
    ///   - days: How many of the last days to list, 1...7 (today included).
    public func lines(device: String, days count: Int = 7) -> [String] {
        let shown = Array(days.suffix(max(1, min(count, 7))))
        let labels = Self.dayLabels(endingAt: timestamp, timeZone: timeZone, count: shown.count)
        let largest = max(shown.max() ?? 0, 1)
        let numberWidth = shown.map { Self.grouped($0).count }.max() ?? 1
        let today = self.today ?? days.last ?? 0
        let zone = timeZone.map { " (days in \($0))" } ?? ""
        var lines = ["Activity of \(device)\(zone):", "  Today: \(Self.grouped(today)) steps", ""]
        for (index, steps) in shown.enumerated() {
            let length = steps == 0 ? 0 : max(1, Int((Double(steps) / Double(largest) * Double(Self.barWidth)).rounded()))
            let number = Self.grouped(steps)
            let padded = String(repeating: " ", count: numberWidth - number.count) + number
            let bar = String(repeating: "#", count: length)
            lines.append("  \(labels[index])  \(padded)  \(bar)".trimmingTrailingSpaces())
        }
        lines.append("")
        let weekTotal = self.weekTotal ?? days.suffix(7).reduce(0, +)
        let dailyMean = self.dailyMean ?? Double(weekTotal) / 7
        lines.append("  Week: \(Self.grouped(weekTotal)) steps, \(Self.grouped(Int64(dailyMean.rounded()))) a day on average")
        if let band { lines.append("  Band: \(band)") }
        if let cadence, cadence.isFinite { lines.append("  Cadence: \(Int(cadence.rounded())) steps/min") }
        if let suggestion {
            var line = "  Suggestion: \(suggestion.playlist.name)"
            if let tempo = suggestion.playlist.tempo, tempo.count == 2 {
                line += " (\(Int(tempo[0].rounded()))–\(Int(tempo[1].rounded())) BPM)"
            }
            lines.append(line)
            if let reason = suggestion.reason, !reason.isEmpty { lines.append("    \(reason)") }
            if let link = suggestion.playlist.link, !link.isEmpty { lines.append("    \(link)") }
        } else if let guidance, !guidance.isEmpty {
            lines.append("  No suggestion (motion access: \(authorization ?? "unknown")): \(guidance)")
        } else {
            lines.append("  No suggestion yet.")
        }
        return lines
    }

    /// `Mon 23 Nov` for each of the `count` days ending with the day of `timestamp` in `timeZone` (`day -N` when
    /// the timestamp cannot be read).
    static func dayLabels(endingAt timestamp: String?, timeZone: String?, count: Int) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = Locale(identifier: "en_US_POSIX")
        calendar.timeZone = timeZone.flatMap(TimeZone.init(identifier:)) ?? .gmt
        let formatter = ClientText.dateFormatter("EEE dd MMM", zone: calendar.timeZone)
        return (0..<count).map { index in
            let back = count - 1 - index
            guard let end = timestamp.flatMap(Timestamp.parse), let day = calendar.date(byAdding: .day, value: -back, to: end) else {
                return back == 0 ? "today " : "day -\(back)"
            }
            return formatter.string(from: day)
        }
    }

    /// `12,345`, as the dashboard writes numbers.
    static func grouped(_ value: Int64) -> String {
        DisplayText.grouped(Int(value))
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
