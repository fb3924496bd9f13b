public import Foundation
import ServiceRuntime

/// The small texts the commands share (`status`, `devices`, `walks`, `history`, `activity`): times, lengths of time, tables.
enum ClientText {
    /// `2026-11-22 10:15:30` and `2026-11-22 10:15` (UTC): built once, as a table has a cell of them per row.
    private static let utcSeconds = dateFormatter("yyyy-MM-dd HH:mm:ss")
    private static let utcMinutes = dateFormatter("yyyy-MM-dd HH:mm")

    /// A formatter of `format` in `zone`, in the fixed POSIX locale (the same output whatever the user's locale).
    static func dateFormatter(_ format: String, zone: TimeZone = .gmt) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = format
        return formatter
    }

    /// `2026-11-22 10:15:30` (UTC).
    static func utc(_ date: Date) -> String {
        utcSeconds.string(from: date)
    }

    /// `2026-11-22 10:15` (UTC).
    static func utcMinute(_ date: Date) -> String {
        utcMinutes.string(from: date)
    }

    /// A length of time in its two largest units: `42 s`, `5 min 3 s`, `3 h 12 min`, `2 d 3 h`.
    static func span(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded(.down)))
        let (days, hours, minutes, rest) = (total / 86_400, total % 86_400 / 3_600, total % 3_600 / 60, total % 60)
        if days > 0 { return hours > 0 ? "\(days) d \(hours) h" : "\(days) d" }
        if hours > 0 { return minutes > 0 ? "\(hours) h \(minutes) min" : "\(hours) h" }
        if minutes > 0 { return rest > 0 ? "\(minutes) min \(rest) s" : "\(minutes) min" }
        return "\(rest) s"
    }

    /// Rows in columns two spaces apart, text left-aligned and the `rightAligned` columns (numbers) right-aligned,
    /// no trailing spaces: the tables of `status`, `devices`, `walks` and `history`.
    static func table(_ header: [String], _ rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { cells in
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
    }

    /// JSON with sorted keys and unescaped slashes.
    static func json(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }
}

extension DiscoveredDevice {
    /// `stepcompass devices`: device, when it was last seen (the latest `timestamp` of its retained messages) and its
    /// retained topics, one row per device in id order.
    /// - Parameter now: The time the ages are counted to.
    public static func table(_ devices: [DiscoveredDevice], now: Date = Date()) -> [String] {
        let header = ["device", "last seen (UTC)", "topics"]
        guard !devices.isEmpty else { return [header.joined(separator: "  "), "(no device has a retained message)"] }
        let rows = devices.sorted { $0.id < $1.id }.map { device -> [String] in
            let seen =
                device.lastSeen.map { date in
                    let age = now.timeIntervalSince(date)
                    return ClientText.utc(date) + (age >= 0 ? " (\(ClientText.span(age)) ago)" : "")
                } ?? "—"
            return [device.id, seen, device.topics.map(\.rawValue).joined(separator: ", ")]
        }
        return ClientText.table(header, rows)
    }

    /// `stepcompass devices --json`: `{"devices": [{"device", "lastSeen" (ISO 8601 or null), "topics"}]}`, in id order.
    public static func json(_ devices: [DiscoveredDevice]) -> Data {
        let list: [[String: Any]] = devices.sorted { $0.id < $1.id }.map { device in
            [
                "device": device.id,
                "lastSeen": device.lastSeen.map { Timestamp.format($0) as Any } ?? NSNull(),
                "topics": device.topics.map(\.rawValue),
            ]
        }
        return ClientText.json(["devices": list])
    }
}
