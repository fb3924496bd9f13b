public import Bus
public import Configuration
public import Logging
public import ServiceLifecycle
import ServiceRuntime

/// Builds the marker geodata service (`stepcompass-markers`) over `bus`: the executable's `main` runs the group
/// with signal handling, and tests run it over an in-memory bus.
/// - Parameters:
///   - config: The configuration (``MarkerServiceConfiguration/init(config:)`` and `topic.prefix`).
///   - logger: The service's logger.
///   - bus: The bus, not yet connected.
///   - clock: The service's clock: the refresh timer, the retries and the status dates (tests pass a manual one).
/// - Returns: The bus connection and the service, in one group.
/// - Throws: ``MarkerServiceError`` for invalid settings.
public func buildMarkers(
    config: ConfigReader, logger: Logger, bus: any ConnectableBus, clock: some Clock<Duration> = ContinuousClock()
) throws -> ServiceGroup {
    let runtime = BusRuntime(service: "markers", config: config, logger: logger, bus: bus, clock: ServiceClock(clock))
    let service = try MarkerService(configuration: try MarkerServiceConfiguration(config: config), context: runtime.context)
    return runtime.group([service])
}
