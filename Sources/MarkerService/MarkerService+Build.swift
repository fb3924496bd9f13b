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
/// - Returns: The bus connection and the service, in one group.
/// - Throws: ``MarkerServiceError`` for invalid settings.
public func buildMarkers(config: ConfigReader, logger: Logger, bus: any ConnectableBus) throws -> ServiceGroup {
    let runtime = BusRuntime(service: "markers", config: config, logger: logger, bus: bus)
    let service = try MarkerService(configuration: try MarkerServiceConfiguration(config: config), context: runtime.context)
    return runtime.group([service])
}
