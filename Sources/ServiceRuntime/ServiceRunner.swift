import Bus
public import Configuration
import Foundation
public import Logging
public import MosquittoBus
public import ServiceLifecycle
import UnixSignals

/// Runs one StepCompass service: configuration, logging, the MQTT connection, status, signals.
///
/// The executable's `main` parses options, calls ``prepare(service:options:commandLine:)`` and hands the
/// service's builder (`buildX(config:logger:bus:)`, the same function the tests call over an in-memory bus)
/// to ``run(_:)``. The group it builds connects to the broker (retrying with backoff until it is there),
/// publishes `online` when the logic calls ``BusServiceContext/ready()`` (and again after every reconnect),
/// and on SIGTERM or SIGINT stops the logic, publishes `offline`, disconnects cleanly keeping the session,
/// and returns (exit status 0). See ``BusRuntime``.
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

    /// Creates the MQTT connection (with the `offline` status as its last will), builds the service group with
    /// `build` (the service's `buildX(config:logger:bus:)`), and runs it until SIGTERM or SIGINT, or until its
    /// work ends. Settings read by `build` that were present but malformed stop the start.
    /// - Parameter build: The service's builder.
    public func run(_ build: (ConfigReader, Logger, MosquittoBus) async throws -> ServiceGroup) async throws {
        try checkSettings()
        let statuses = ServiceStatus.messages(service: service, topics: topics, startedAt: Date())
        var mqtt = try MosquittoConfiguration(config: config, service: service, will: statuses.offline)
        if config.int(forKey: "metrics.port") != nil {
            ServiceMetrics.bootstrap(service: service)
            mqtt.observer = BusTrafficMetrics(service: service, topics: topics)
        }
        let bus = try MosquittoBus(configuration: mqtt, logger: logger)
        logger.info(
            "starting",
            metadata: [
                "service": "\(service)", "version": "\(StepCompassVersion.current)",
                "mqtt.broker": "\(mqtt.host):\(mqtt.port)", "mqtt.client": "\(mqtt.clientID)",
                "mqtt.protocol": "\(mqtt.protocolVersion.rawValue)", "mqtt.tls": "\(mqtt.tls != nil)",
                "topic.prefix": "\(topics.prefix)",
            ])
        let group = try await build(config, logger, bus)
        try checkSettings()
        // The signals belong to the process, not to the service: the built group runs inside this one,
        // as Hummingbird's `runService()` does with an application.
        let process = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: group, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await process.run()
    }
}
