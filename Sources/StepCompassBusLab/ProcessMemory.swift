import Foundation

/// A process's memory from `/proc/<pid>/status`, to show what a service under load holds.
enum ProcessMemory {
    /// The resident set now (VmRSS), KiB.
    static func residentKiB(pid: Int32) -> Int? { kibibytes("VmRSS:", pid: pid) }

    /// The peak resident set (VmHWM), KiB.
    static func peakKiB(pid: Int32) -> Int? { kibibytes("VmHWM:", pid: pid) }

    /// The resident set now (VmRSS), MiB.
    static func residentMiB(pid: Int32) -> Double? { residentKiB(pid: pid).map { Double($0) / 1_024 } }

    /// The peak resident set (VmHWM), MiB.
    static func peakMiB(pid: Int32) -> Double? { peakKiB(pid: pid).map { Double($0) / 1_024 } }

    /// The number of the line that starts with `name` (`VmRSS:   1234 kB`), or nil when the file or line is not there.
    private static func kibibytes(_ name: String, pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) })
        else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first
    }

    /// The figures of `/proc/<pid>/smaps_rollup` (`Rss`, `Pss`, `Anonymous`, `Private_Clean`, ...), KiB; nil when the
    /// file cannot be read.
    static func rollupKiB(pid: Int32) -> [String: Int]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return nil }
        var figures: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, parts[0].hasSuffix(":"), let value = Int(parts[1]) else { continue }
            figures[String(parts[0].dropLast())] = value
        }
        return figures
    }

    /// The resident KiB of each file mapped by `pid` (anonymous mappings under "[anonymous]", the heap and stacks under
    /// their kernel names), from `/proc/<pid>/smaps`, largest first.
    static func residentByMapping(pid: Int32) -> [(name: String, kib: Int)] {
        // Read to the end: /proc files report a size of 0, and smaps is longer than one read.
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps") else { return [] }
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        var totals: [String: Int] = [:]
        var current = "[anonymous]"
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = parts.first else { continue }
            if first.contains("-"), first.first?.isHexDigit == true, parts.count >= 5 {
                current = parts.count >= 6 ? String(parts[5...].joined(separator: " ")) : "[anonymous]"
            } else if first == "Rss:", parts.count >= 2, let value = Int(parts[1]) {
                totals[current, default: 0] += value
            }
        }
        return totals.map { (name: $0.key, kib: $0.value) }.sorted { $0.kib > $1.kib }
    }
}
