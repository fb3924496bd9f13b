public import Bus
public import Configuration
public import Logging
public import ServiceLifecycle
import ServiceRuntime

/// Builds the compass and calibration service (`stepcompass-compass`) over `bus`: the executable's `main` runs
/// the group with signal handling, and tests run it over an in-memory bus.
/// - Parameters:
///   - config: The configuration (``CompassConfiguration/init(config:)`` and `topic.prefix`).
///   - logger: The service's logger.
///   - bus: The bus, not yet connected.
///   - clock: The service's clock: rate windows, stale detection, timers and timestamps (tests pass a manual one).
/// - Returns: The bus connection and the service, in one group.
/// - Throws: ``CompassServiceError`` for invalid settings or a missing magnetic model.
public func buildCompass(
    config: ConfigReader, logger: Logger, bus: any ConnectableBus, clock: some Clock<Duration> = ContinuousClock()
) throws -> ServiceGroup {
    let runtime = BusRuntime(service: "compass", config: config, logger: logger, bus: bus, clock: ServiceClock(clock))
    let service = try CompassService(configuration: CompassConfiguration(config: config), context: runtime.context)
    return runtime.group([service])
}
