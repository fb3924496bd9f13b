import ArgumentParser
import Bus
import Configuration
import Foundation
import Logging
import MosquittoBus
import ServiceRuntime
import StepCompassClient

/// Connects a command to the broker the way the services do (same options, environment variables and
/// configuration file), as a client: random client id, clean session, no status, no last will.
struct ClientConnection {
    let bus: MosquittoBus
    let topics: Topics

    /// Runs `body` with a connected bus and disconnects afterwards; turns every failure into a message
    /// on standard error and a non-zero exit status.
    static func run(_ options: ClientOptions, _ body: (ClientConnection) async throws -> Void) async throws {
        do {
            let connection = try await open(options)
            do {
                try await body(connection)
            } catch {
                await connection.bus.disconnect(timeout: .seconds(2))
                throw error
            }
            await connection.bus.disconnect(timeout: .seconds(2))
        } catch let error as StepCompassClientError {
            Terminal.error(error.message)
            throw ExitCode(error.exitCode)
        } catch let error as BusError {
            Terminal.error(error.message)
            throw ExitCode.failure
        } catch let error as ConfigurationError {
            Terminal.error(error.description)
            throw ExitCode(78)
        } catch is CancellationError {
            throw ExitCode(130)
        }
    }

    private static func open(_ options: ClientOptions) async throws -> ClientConnection {
        let runtime = options.runtime
        let config = try await ConfigurationLoader.load(
            service: "cli", commandLine: runtime.commandLineValues, configFile: runtime.configFile)
        let logging = try logSettings(config)
        logging.bootstrap()
        var logger = Logger(label: "stepcompass-cli")
        logger.logLevel = logging.level
        var mqtt = try MosquittoConfiguration(config: config, service: "cli", will: nil)
        // Only an explicit --mqtt-client-id replaces the random id: MQTT_CLIENT_ID in the environment is
        // usually a service's, and a clean session under its id would throw that service off the broker.
        mqtt.clientID = runtime.mqttClientID ?? "stepcompass-cli-\(UUID().uuidString.prefix(8).lowercased())"
        mqtt.cleanStart = true
        mqtt.will = nil
        mqtt.reconnectDelay = .milliseconds(100)
        mqtt.reconnectDelayMax = .seconds(1)
        let bus = try MosquittoBus(configuration: mqtt, logger: logger)
        do {
            try await bus.connect(timeout: .seconds(checked: options.connectTimeout))
        } catch let error as BusError {
            await bus.disconnect(timeout: .seconds(1))
            throw StepCompassClientError.brokerUnreachable(host: mqtt.host, port: mqtt.port, reason: reason(of: error))
        }
        let topics = Topics(prefix: config.string(forKey: "topic.prefix", default: "stepcompass"))
        return ClientConnection(bus: bus, topics: topics)
    }

    /// The client logs only errors unless asked (`--log-level`, LOG_LEVEL): its output is for people.
    private static func logSettings(_ config: ConfigReader) throws -> LogSettings {
        let levelText = config.string(forKey: "log.level", default: "error").lowercased()
        guard let level = Logger.Level(rawValue: levelText) else {
            throw ConfigurationError("LOG_LEVEL '\(levelText)' is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let format = LogSettings.Format(rawValue: config.string(forKey: "log.format", default: "text").lowercased()) ?? .text
        return LogSettings(level: level, format: format)
    }

    /// The cause in a connection timeout (`... within 3 s: Connection refused`).
    private static func reason(of error: BusError) -> String {
        let message = error.message
        if let within = message.range(of: " within "), let colon = message.range(of: ": ", range: within.upperBound..<message.endIndex) {
            return String(message[colon.upperBound...])
        }
        return message
    }
}
