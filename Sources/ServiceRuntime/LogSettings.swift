public import Configuration
public import Logging

/// How an executable logs: level and format (`text` for people, `json` for log collectors).
public struct LogSettings: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var level: Logger.Level
    public var format: Format

    public init(level: Logger.Level = .info, format: Format = .text) {
        self.level = level
        self.format = format
    }

    /// Reads `log.level` (LOG_LEVEL) and `log.format` (LOG_FORMAT).
    public init(config: ConfigReader) throws {
        let levelText = config.string(forKey: "log.level", default: "info").lowercased()
        guard let level = Logger.Level(rawValue: levelText) else {
            throw ConfigurationError("LOG_LEVEL '\(levelText)' is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let formatText = config.string(forKey: "log.format", default: "text").lowercased()
        guard let format = Format(rawValue: formatText) else {
            throw ConfigurationError("LOG_FORMAT '\(formatText)' is not text or json")
        }
        self.init(level: level, format: format)
    }

    /// Bootstraps swift-log for the process: once, in the executable, never in a library or test.
    public func bootstrap() {
        let level = level
        switch format {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }
}
