public import Bus
public import Configuration
public import Foundation
public import Logging
public import ServiceLifecycle

/// Assembles one StepCompass service over any bus: the topic names, the `online`/`offline` statuses, the
/// ``BusConnection`` service and the context the logic gets.
///
/// Every `buildX(config:logger:bus:)` starts with one and ends with ``group(_:)``:
///
/// ```swift
/// public func buildPosition(config: ConfigReader, logger: Logger, bus: any ConnectableBus) throws -> ServiceGroup {
///     let runtime = BusRuntime(service: "position", config: config, logger: logger, bus: bus)
///     let service = try PositionService(configuration: PositionConfiguration(config: config), context: runtime.context)
///     return runtime.group([service])
/// }
/// ```
///
/// The executable's `main` runs that group with signal handling (``ServiceRunner``); tests run it over an
/// `InMemoryBus`.
public struct BusRuntime: Sendable {
    /// The contract's service name.
    public let service: String
    /// The topic names under the configured prefix (`topic.prefix`, default `stepcompass`).
    public let topics: Topics
    /// The service's logger.
    public let logger: Logger
    /// The connection service, first in the group.
    public let connection: BusConnection
    /// The context the logic gets.
    public let context: BusServiceContext
    /// Where `GET /metrics` is served (`metrics.host`, `metrics.port`); nil: no metrics endpoint.
    public let metrics: (host: String, port: Int)?
    /// The gauges set at scrape time, when metrics are served.
    private let scrape: RuntimeScrapeMetrics?

    /// Creates the runtime of one service.
    /// - Parameters:
    ///   - service: The contract's service name (`position`, ...).
    ///   - config: The configuration; reads `topic.prefix`.
    ///   - logger: The service's logger.
    ///   - bus: The bus, not yet connected.
    ///   - startedAt: The start time reported in the status.
    ///   - clock: The service's clock (``BusServiceContext/clock``; default: a `ContinuousClock` from now).
    public init(
        service: String, config: ConfigReader, logger: Logger, bus: any ConnectableBus, startedAt: Date = Date(),
        clock: ServiceClock = .continuous
    ) {
        let topics = Topics(prefix: config.string(forKey: "topic.prefix", default: "stepcompass"))
        let metrics = config.int(forKey: "metrics.port").map { (host: config.string(forKey: "metrics.host", default: "127.0.0.1"), port: $0) }
        self.init(service: service, topics: topics, logger: logger, bus: bus, startedAt: startedAt, metrics: metrics, clock: clock)
    }

    /// Creates the runtime of one service with the given topic names.
    /// - Parameters:
    ///   - service: The contract's service name (`position`, ...).
    ///   - topics: The topic names.
    ///   - logger: The service's logger.
    ///   - bus: The bus, not yet connected.
    ///   - startedAt: The start time reported in the status.
    ///   - metrics: Where to serve `GET /metrics`; nil for none. swift-metrics is bootstrapped here, before the
    ///     service makes its metrics.
    ///   - clock: The service's clock (``BusServiceContext/clock``).
    public init(
        service: String, topics: Topics, logger: Logger, bus: any ConnectableBus, startedAt: Date = Date(),
        metrics: (host: String, port: Int)? = nil, clock: ServiceClock = .continuous
    ) {
        if metrics != nil { ServiceMetrics.bootstrap(service: service) }
        self.metrics = metrics
        let statuses = ServiceStatus.messages(service: service, topics: topics, startedAt: startedAt)
        let connection = BusConnection(bus: bus, online: statuses.online, offline: statuses.offline, logger: logger)
        self.service = service
        self.topics = topics
        self.logger = logger
        self.connection = connection
        self.context = BusServiceContext(
            service: service, bus: bus, topics: topics, logger: logger,
            onReady: { try await connection.ready() },
            connected: { try await connection.waitUntilConnected() }, clock: clock,
            restate: { topic, message in
                if let message { bus.restateAfterReconnect(message) } else { bus.stopRestating(topic: topic) }
            })
        self.scrape = metrics == nil ? nil : RuntimeScrapeMetrics(service: service, bus: bus, instruments: context.metrics)
    }

    /// Sets the gauges read at scrape time (publishes waiting for acknowledgement, the subscriptions' backlog and
    /// drops, the service's own ``ServiceInstruments/onScrape(_:)``): the metrics endpoint calls it before every
    /// scrape. Nothing without metrics.
    public func refreshMetrics() {
        scrape?.refresh()
    }

    /// The service group: the connection first (it stops last), then `services`. A service whose work ends
    /// (a replay, a walk of `--duration`) shuts the whole group down gracefully.
    /// - Parameter services: The logic services, in start order; they are stopped in reverse order.
    public func group(_ services: [any Service]) -> ServiceGroup {
        var services = services
        if let metrics, let registry = ServiceMetrics.registry {
            let scrape = self.scrape
            services.append(
                MetricsEndpoint(host: metrics.host, port: metrics.port, registry: registry, logger: logger) {
                    scrape?.refresh()
                })
        }
        // Named by type: ServiceLifecycle otherwise names a service by its description, which for a struct is every
        // stored property, tokens and passwords included, in its debug logs and errors.
        let logic = services.map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "\(type(of: $0))")
        }
        return ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: connection, serviceName: "\(type(of: connection))")] + logic, logger: logger))
    }
}

extension BusServiceContext {
    /// Runs a service's work once the bus is connected, until the group shuts down gracefully or the task is
    /// cancelled; both end it normally. Another error is thrown, which fails the group.
    /// - Parameter work: The service's loop.
    public func serve(_ work: @escaping @Sendable () async throws -> Void) async throws {
        do {
            // Both the wait for the broker and the work end on a graceful shutdown: a service told to stop while
            // the broker is unreachable stops at once.
            try await cancelWhenGracefulShutdown { try await self.waitUntilConnected() }
            try await cancelWhenGracefulShutdown(work)
        } catch is CancellationError {
            // Asked to stop.
        } catch let error as BusError where error.code == .closed {
            // The bus closed under a read: the runtime is stopping.
        }
    }
}
