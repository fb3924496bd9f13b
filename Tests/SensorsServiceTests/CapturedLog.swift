import Foundation
import Logging

/// A logger whose messages a test can read: each entry is the level and the message.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(level: Logger.Level, message: String)] = []

    /// A logger writing here.
    var logger: Logger {
        Logger(label: "test.captured") { _ in Handler(log: self) }
    }

    /// The messages logged at `level` or above.
    func messages(atLeast level: Logger.Level) -> [String] {
        lock.withLock { entries.filter { $0.level >= level }.map(\.message) }
    }

    fileprivate func append(_ level: Logger.Level, _ message: String) {
        lock.withLock { entries.append((level, message)) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.append(event.level, "\(event.message)")
        }
    }
}
