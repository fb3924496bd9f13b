public import Bus
public import Configuration
import Foundation
public import Logging
public import ServiceLifecycle
import ServiceRuntime

/// Builds the position calculator (`stepcompass-position`) over `bus`: the executable's `main` runs the group
/// with signal handling, and tests run it over an in-memory bus.
/// - Parameters:
///   - config: The configuration (``PositionConfiguration/init(config:)`` and `topic.prefix`).
///   - logger: The service's logger.
///   - bus: The bus, not yet connected.
///   - clock: The service's clock: the timestamps of positions whose input had none (tests pass a manual one).
/// - Returns: The bus connection and the service, in one group.
/// - Throws: `ConfigurationError` for a `heading.source` other than `device` or `walking`, or a `step.length` that
///   is neither a number nor `estimated`, or a `max.devices` below 1.
public func buildPosition(
    config: ConfigReader, logger: Logger, bus: any ConnectableBus, clock: some Clock<Duration> = ContinuousClock()
) throws -> ServiceGroup {
    try buildPosition(config: config, logger: logger, bus: bus, configuration: PositionConfiguration(config: config), clock: clock)
}

/// Builds the position calculator with `configuration` (the executable adjusts what it read from `config`);
/// `config` still gives the runtime's settings (`topic.prefix`, ...).
public func buildPosition(
    config: ConfigReader, logger: Logger, bus: any ConnectableBus, configuration: PositionConfiguration,
    clock: some Clock<Duration> = ContinuousClock()
) throws -> ServiceGroup {
    if let source = config.string(forKey: "heading.source"),
        PositionConfiguration.HeadingSource(rawValue: source.trimmingCharacters(in: .whitespaces).lowercased()) == nil
    {
        throw ConfigurationError("the setting 'heading.source' is '\(source.prefix(40))'; expected device or walking")
    }
    if !configuration.estimatedStepLength, config.double(forKey: "step.length") == nil,
        let text = config.string(forKey: "step.length")
    {
        throw ConfigurationError("the setting 'step.length' is '\(text.prefix(40))'; expected metres or estimated")
    }
    guard configuration.maxDevices >= 1 else {
        throw ConfigurationError("the setting 'max.devices' is \(configuration.maxDevices); expected 1 or more")
    }
    let runtime = BusRuntime(service: "position", config: config, logger: logger, bus: bus, clock: ServiceClock(clock))
    let service = try PositionService(configuration: configuration, context: runtime.context)
    return runtime.group([service])
}
