public import WalkerSimulation

/// The settings of the sensor publisher's simulated walkers.
///
/// The executable fills it from its options (`--device`, `--devices`, `--speed`, `--seed`, ...), the environment
/// or `Config/sensors.json`; tests build it directly.
public struct SensorsConfiguration: Sendable {
    /// The device ids to simulate, one walker each (`--device`, or `walker-1`...`walker-N` with `--devices N`).
    public var devices: [String]
    /// The walk of the first device; device *i* (from 0) uses the same walk with seed `walker.seed + i`.
    public var walker: WalkerConfiguration
    /// How many times faster than real time the walk runs (`--speed`); timestamps stay in simulated time.
    public var speed: Double
    /// Simulated seconds after which the walkers stop (`--duration`); `nil` runs until shutdown.
    public var duration: Double?
    /// Simulated seconds between progress log lines (10).
    public var progressInterval: Double
    /// Wall-clock time between bursts of publishing: each burst carries `tick × speed` seconds of walk (20 ms,
    /// one IMU sample per burst at 50 Hz and real time).
    public var tick: Duration

    /// Creates a configuration.
    /// - Parameters:
    ///   - devices: Device ids, each valid per the contract.
    ///   - walker: The first device's walk.
    ///   - speed: Time factor, finite and positive.
    ///   - duration: Simulated seconds to run, or `nil` for ever.
    ///   - progressInterval: Simulated seconds between progress logs.
    ///   - tick: Wall-clock time between bursts.
    public init(
        devices: [String] = ["walker-1"], walker: WalkerConfiguration = WalkerConfiguration(), speed: Double = 1,
        duration: Double? = nil, progressInterval: Double = 10, tick: Duration = .milliseconds(20)
    ) {
        self.devices = devices
        self.walker = walker
        self.speed = speed
        self.duration = duration
        self.progressInterval = progressInterval
        self.tick = tick
    }

    /// The fleet's device ids: `walker-1` ... `walker-N`.
    /// - Parameter count: The number of walkers, at least 1.
    public static func fleet(_ count: Int) -> [String] {
        (1...max(1, count)).map { "walker-\($0)" }
    }

    /// The walk of the device at `index`: the base walk with its own seed.
    func walker(at index: Int) -> WalkerConfiguration {
        var configuration = walker
        configuration.seed = walker.seed &+ UInt64(index)
        return configuration
    }
}
