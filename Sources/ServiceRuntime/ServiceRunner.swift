import Bus
public import Configuration
import Foundation
public import Logging
import MosquittoBus
import ServiceLifecycle
import UnixSignals

/// Runs one StepCompass service: configuration, logging, the MQTT connection, status, signals.
///
/// The executable's `main` parses options, calls ``prepare(service:options:commandLine:)`` and hands its
/// logic to ``run(_:)``. The runner connects to the broker (retrying with backoff until it is there),
/// sets the offline status as the last will, runs the logic, publishes `online` when the logic calls
/// ``ServiceContext/ready()`` (and again after every reconnect), and on SIGTERM or SIGINT cancels the
/// logic, publishes `offline`, disconnects cleanly keeping the session, and returns (exit status 0).
public struct ServiceRunner: Sendable {
    public let service: String
    public let config: ConfigReader
    public let logger: Logger
    public let topics: Topics
    /// Records settings that were present but malformed (see ``checkSettings()``).
    let malformed: MalformedSettingRecorder?

    /// Reads the configuration and bootstraps logging (once per process).
    /// - Parameters:
    ///   - service: The contract's service name (`sensors`, `compass`, ...).
    ///   - options: The shared command-line options.
    ///   - commandLine: The service's own command-line values, as configuration keys.
    public static func prepare(
        service: String, options: RuntimeOptions, commandLine: [AbsoluteConfigKey: ConfigValue] = [:]
    ) async throws -> ServiceRunner {
        let values = options.commandLineValues.merging(commandLine) { $1 }
        let malformed = MalformedSettingRecorder()
        let config = try await ConfigurationLoader.load(
            service: service, commandLine: values, configFile: options.configFile, accessReporter: malformed)
        let settings = try LogSettings(config: config)
        settings.bootstrap()
        var logger = Logger(label: "stepcompass-\(service)")
        logger.logLevel = settings.level
        let prefix = config.string(forKey: "topic.prefix", default: "stepcompass")
        return ServiceRunner(service: service, config: config, logger: logger, topics: Topics(prefix: prefix), malformed: malformed)
    }

    public init(
        service: String, config: ConfigReader, logger: Logger, topics: Topics, malformed: MalformedSettingRecorder? = nil
    ) {
        self.service = service
        self.config = config
        self.logger = logger
        self.topics = topics
        self.malformed = malformed
    }

    /// Throws when a setting read so far was present but malformed (`SPEED=fast`), instead of running
    /// on the default the configuration library fell back to. ``run(_:)`` calls it first; a command
    /// that reads its settings after `prepare` gets the check for free.
    public func checkSettings() throws {
        guard let messages = malformed?.messages, !messages.isEmpty else { return }
        throw ConfigurationError(messages.joined(separator: "; "))
    }

    /// Connects and runs `body` until SIGTERM or SIGINT (or until `body` returns).
    public func run(_ body: @escaping @Sendable (ServiceContext) async throws -> Void) async throws {
        try checkSettings()
        let startedAt = Timestamp.format(Date())
        let online = ServiceStatus(state: .online, service: service, version: StepCompassVersion.current, startedAt: startedAt)
        var offline = online
        offline.state = .offline
        let mqtt = try MosquittoConfiguration(config: config, service: service, will: offline.message(topics: topics))
        let bus = try MosquittoBus(configuration: mqtt, logger: logger)
        logger.info("starting", metadata: [
            "service": "\(service)", "version": "\(StepCompassVersion.current)",
            "mqtt.broker": "\(mqtt.host):\(mqtt.port)", "mqtt.client": "\(mqtt.clientID)",
            "mqtt.protocol": "\(mqtt.protocolVersion.rawValue)", "mqtt.tls": "\(mqtt.tls != nil)",
            "topic.prefix": "\(topics.prefix)",
        ])
        let application = BusApplication(
            bus: bus, body: body, service: service, topics: topics, logger: logger,
            online: online.message(topics: topics), offline: offline.message(topics: topics))
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                // A service whose work is done (a replay, a walk of --duration) ends the process cleanly.
                services: [.init(service: application, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
    }
}

/// The service's logic wrapped as a swift-service-lifecycle `Service`.
struct BusApplication: Service {
    let bus: MosquittoBus
    let body: @Sendable (ServiceContext) async throws -> Void
    let service: String
    let topics: Topics
    let logger: Logger
    let online: BusMessage
    let offline: BusMessage

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await bus.connect(timeout: .seconds(365 * 86_400))
                let context = ServiceContext(service: service, bus: bus, topics: topics, logger: logger) {
                    try await bus.publish(online)
                    bus.setBirthMessage(online)
                    logger.info("online", metadata: ["status.topic": "\(online.topic)"])
                }
                try await body(context)
            }
        } catch is CancellationError {
            // Shutdown requested: fall through to the clean disconnect.
        } catch let error as BusError where error.code == .closed {
            // Shutdown requested while waiting on the bus.
        } catch {
            logger.error("the service failed", metadata: ["error": "\(error)"])
            await bus.disconnect(publishing: [offline])
            throw error
        }
        logger.info("stopping: publishing offline and disconnecting")
        await bus.disconnect(publishing: [offline])
    }
}
