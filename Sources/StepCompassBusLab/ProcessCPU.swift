import Foundation

/// CPU time from `/proc`, to show where the two cores went during a load run.
enum ProcessCPU {
    /// User + system CPU seconds of a process so far, or nil when it cannot be read.
    static func seconds(pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name: state is field 3, utime 14 and stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The first process whose command line contains `text` (the broker, found by its private folder).
    static func pid(commandLineContaining text: String) -> Int32? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = Int32(entry), pid != getpid(),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            if line.contains(text) { return pid }
        }
        return nil
    }

    /// The machine's busy and total CPU seconds (all cores) so far, from the first line of `/proc/stat`.
    static func machine() -> (busy: Double, total: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard values.count >= 5 else { return nil }
        let total = values.reduce(0, +)
        let idle = values[3] + values[4]  // idle + iowait
        let tick = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ((total - idle) / tick, total / tick)
    }
}
