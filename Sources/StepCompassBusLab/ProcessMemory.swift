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
}
