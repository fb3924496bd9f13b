import Foundation
import GeoMagnetism
import Logging
public import ServiceLifecycle
public import ServiceRuntime
public import WalkerSimulation

/// The sensor publisher (`stepcompass-sensors`): simulated walkers on the contract's device topics.
///
/// Each device gets a ``WalkerSimulation/WalkerSimulator`` (its own seed) with the World Magnetic Model 2025 as its
/// field source, and publishes `permissions` (retained, both authorized) once, then `steps` (QoS 1), `imu` at the
/// IMU rate (QoS 0), `location` at 1 Hz (QoS 1) and `simulation/truth` (QoS 0), with timestamps in simulated time.
/// A fleet's walkers are advanced and published by one loop (``FleetPublisher``). Pacing uses the injected clock (a `ContinuousClock` in
/// production), so tests can run fast.
public struct SensorsService<C: Clock>: Service where C.Duration == Duration {
    private let configuration: SensorsConfiguration
    private let context: BusServiceContext
    private let clock: C
    private let fieldSource: any GeomagneticFieldSource

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: The devices, the walk, the speed and the duration.
    ///   - context: The bus, topics and logger.
    ///   - clock: Paces the walk.
    ///   - fieldSource: The Earth's field; `nil` loads WMM2025.
    /// - Throws: ``SensorsError`` for a bad device id, speed or duration; `WalkerSimulationError` for a walk out of
    ///   range; the model's error when WMM2025 cannot load.
    public init(
        configuration: SensorsConfiguration, context: BusServiceContext, clock: C,
        fieldSource: (any GeomagneticFieldSource)? = nil
    ) throws {
        guard !configuration.devices.isEmpty else { throw SensorsError(.invalidConfiguration, "no device to simulate") }
        for device in configuration.devices {
            do { try DeviceID.validate(device) } catch {
                throw SensorsError(.invalidConfiguration, error.message)
            }
        }
        guard configuration.speed.isFinite, configuration.speed > 0 else {
            throw SensorsError(.invalidConfiguration, "the speed must be a finite positive factor, not \(configuration.speed)")
        }
        if let duration = configuration.duration, !(duration.isFinite && duration >= 0) {
            throw SensorsError(.invalidConfiguration, "the duration must be a finite number of seconds ≥ 0, not \(duration)")
        }
        self.configuration = configuration
        self.context = context
        self.clock = clock
        let source = try fieldSource ?? WorldMagneticModel.wmm2025()
        // Refuse a walk the simulator cannot run now, rather than when the first walker starts.
        _ = try WalkerSimulator(configuration: configuration.walker, fieldSource: source)
        self.fieldSource = source
    }

    /// The device ids for the start-up line: all of a small fleet, the first and last of a large one.
    private static func list(_ devices: [String]) -> String {
        guard devices.count > FleetPublisher<C>.walkerLinesLimit, let first = devices.first, let last = devices.last else {
            return devices.joined(separator: ",")
        }
        return "\(first) ... \(last) (\(devices.count))"
    }

    /// Waits for the bus, says ready and publishes every walker until the duration ends, the group shuts down
    /// or the task is cancelled.
    public func run() async throws {
        try await context.serve { try await self.simulate() }
    }

    private func simulate() async throws {
        try await context.ready()
        context.logger.info(
            "simulating",
            metadata: [
                "sensors.devices": "\(Self.list(configuration.devices))", "sensors.speed": "\(configuration.speed)",
                "sensors.seed": "\(configuration.walker.seed)",
            ])
        let walkers = configuration.devices.enumerated().map { (device: $0.element, walk: configuration.walker(at: $0.offset)) }
        try await FleetPublisher(
            walkers: walkers, fieldSource: fieldSource, speed: configuration.speed, duration: configuration.duration,
            progressInterval: configuration.progressInterval, tick: configuration.tick, clock: clock, context: context
        ).run()
    }
}

extension SensorsService where C == ContinuousClock {
    /// Creates the service paced by the continuous clock.
    /// - Parameters:
    ///   - configuration: The devices, the walk, the speed and the duration.
    ///   - context: The bus, topics and logger.
    public init(configuration: SensorsConfiguration, context: BusServiceContext) throws {
        try self.init(configuration: configuration, context: context, clock: ContinuousClock())
    }
}
