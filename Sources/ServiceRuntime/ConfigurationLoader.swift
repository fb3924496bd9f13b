public import Configuration
public import Foundation
import SystemPackage

/// Builds the provider hierarchy an executable reads its configuration from.
public enum ConfigurationLoader {
    /// Command-line values, then environment variables, then a JSON file, then the caller's defaults.
    ///
    /// - Parameters:
    ///   - service: The service name; the default file is `Config/<service>.json`.
    ///   - commandLine: Values parsed by ArgumentParser (they win).
    ///   - configFile: An explicit file; a missing explicit file is an error, a missing default is not.
    ///   - environment: The environment (injected by tests).
    ///   - accessReporter: Told of every read (the runner's ``MalformedSettingRecorder``).
    public static func load(
        service: String,
        commandLine: [AbsoluteConfigKey: ConfigValue],
        configFile: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        accessReporter: (any AccessReporter)? = nil
    ) async throws -> ConfigReader {
        let explicit = configFile ?? environment["CONFIG_FILE"]
        let path = explicit ?? "Config/\(service).json"
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "command line", values: commandLine),
            EnvironmentVariablesProvider(environmentVariables: environment),
        ]
        if explicit != nil || FileManager.default.fileExists(atPath: path) {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(path), allowMissing: false))
            } catch {
                throw ConfigurationError("cannot read the configuration file '\(path)': \(error)")
            }
        }
        return ConfigReader(providers: providers, accessReporter: accessReporter)
    }
}

/// A configuration value that is missing, malformed or out of range, with a message that names it.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
