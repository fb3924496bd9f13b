public import Bus
public import Configuration
import Foundation
public import Logging
public import ServiceLifecycle
import ServiceRuntime

/// Builds the sensor publisher (`stepcompass-sensors`) over `bus`: a replay of `replay` (a file), a recording
/// to `record`, or else the simulated walkers of ``SensorsConfiguration/init(config:)``. The executable's
/// `main` runs the group with signal handling, and tests run it over an in-memory bus.
/// - Parameters:
///   - config: The configuration (also `replay`, `record`, `device`, `speed`, `duration`, `topic.prefix`).
///   - logger: The service's logger.
///   - bus: The bus, not yet connected.
/// - Returns: The bus connection and the publisher, in one group; a replay or a walk of a set duration ends it.
public func buildSensors(config: ConfigReader, logger: Logger, bus: any ConnectableBus) throws -> ServiceGroup {
    let runtime = BusRuntime(service: "sensors", config: config, logger: logger, bus: bus)
    let settings = SensorsConfiguration(config: config)
    let device = settings.devices[0]
    if let path = config.string(forKey: "replay") {
        return runtime.group([
            SensorReplayer(
                device: device, file: URL(fileURLWithPath: path), speed: settings.speed, context: runtime.context,
                clock: ContinuousClock())
        ])
    }
    if let path = config.string(forKey: "record") {
        return runtime.group([
            SensorRecorder(
                device: device, file: URL(fileURLWithPath: path), duration: settings.duration.map { .seconds($0) },
                context: runtime.context, clock: ContinuousClock())
        ])
    }
    return runtime.group([try SensorsService(configuration: settings, context: runtime.context)])
}
