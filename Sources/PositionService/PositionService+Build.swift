public import Bus
public import Configuration
public import Logging
public import ServiceLifecycle
import ServiceRuntime

/// Builds the position calculator (`stepcompass-position`) over `bus`: the executable's `main` runs the group
/// with signal handling, and tests run it over an in-memory bus.
/// - Parameters:
///   - config: The configuration (``PositionConfiguration/init(config:)`` and `topic.prefix`).
///   - logger: The service's logger.
///   - bus: The bus, not yet connected.
/// - Returns: The bus connection and the service, in one group.
public func buildPosition(config: ConfigReader, logger: Logger, bus: any ConnectableBus) throws -> ServiceGroup {
    let runtime = BusRuntime(service: "position", config: config, logger: logger, bus: bus)
    let service = try PositionService(configuration: PositionConfiguration(config: config), context: runtime.context)
    return runtime.group([service])
}
