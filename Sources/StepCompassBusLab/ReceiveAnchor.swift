import BusTesting
import Foundation

/// The C anchor of the load tools that drive a receiving service: mosquitto's own client, `mosquitto_sub`, receiving
/// the same stream as the service (output to /dev/null), its CPU seconds per message.
///
/// It shows what receiving a message through libmosquitto costs on this machine, so a service's CPU per message can
/// be read against the least any libmosquitto program spends.
enum ReceiveAnchor {
    /// Runs `mosquitto_sub -t filter` on the broker at `port` while `publish` sends `ticks` ticks starting at `start`,
    /// and returns its CPU seconds per message sent (nil when its CPU cannot be read, it exited or nothing was sent).
    ///
    /// `publish` gets the start (Unix seconds, a second from now: `mosquitto_sub` needs milliseconds to subscribe).
    static func measure(
        port: Int, filter: String, label: String, publish: (_ start: Double) async throws -> Int
    ) async throws -> Double? {
        // The shell only redirects the output and replaces itself with the client: the process measured is the client.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-anchor-\(UUID().uuidString).log")
        let client = try await ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "exec mosquitto_sub -h 127.0.0.1 -p \(port) -q 0 -t '\(filter)' > /dev/null"], outputFile: log)
        defer {
            client.signal(SIGKILL)
            try? FileManager.default.removeItem(at: log)
        }
        let start = Date().timeIntervalSince1970 + 1
        let before = ProcessCPU.seconds(pid: client.pid)
        let sent = try await publish(start)
        let after = ProcessCPU.seconds(pid: client.pid)
        guard client.isRunning, let before, let after, sent > 0 else { return nil }
        return (after - before) / Double(sent)
    }
}
