public import Configuration
import ServiceRuntime

/// The tuning of the compass service, with the contract's defaults.
///
/// The executable fills it from the command line, the environment and the configuration file
/// (keys `smoothing`, `max.rate`, `dead.band`, `stale.after`); tests build it directly with small
/// values so they run fast.
public struct CompassConfiguration: Sendable, Hashable {
    /// The contract's defaults: smoothing 0.25 s, at most 10 headings a second, a 0.5° dead band, stale after 5 s.
    public static let defaults = CompassConfiguration()

    /// The heading smoothing time constant in seconds of sample time (`--smoothing`, default 0.25).
    public var smoothing: Double
    /// The most heading messages per second of sample time for one device (`--max-rate`, default 10).
    public var maxRate: Double
    /// The heading change in degrees within which the published heading stands (`--dead-band`, default 0.5).
    public var deadBand: Double
    /// Seconds of the service's wall clock without an IMU sample after which a device is `stale`
    /// (`--stale-after`, default 5).
    public var staleAfter: Double
    /// The most devices tracked (`--max-devices`, default 100,000): when full, a new device takes the place of the
    /// one idle the longest if it has been idle a minute, else its messages are rejected (``DeviceTable``).
    public var maxDevices: Int = DeviceTable<Void>.defaultCapacity
    /// How long, in seconds, the start-up restore waits after the last retained `heading` or `bearing-lock`
    /// message before it decides the broker has sent them all (retained messages come in one burst right after
    /// the subscription is acknowledged; MQTT has no end-of-retained marker). Not a command-line option: 0.2 s
    /// suits a broker; tests on the in-memory bus, which delivers them during `subscribe`, use less.
    public var restoreQuietPeriod: Double = 0.2

    /// Creates a configuration.
    /// - Parameters:
    ///   - smoothing: Smoothing time constant, seconds of sample time; 0 disables smoothing.
    ///   - maxRate: Heading messages per second of sample time, > 0.
    ///   - deadBand: Dead band in degrees, ≥ 0.
    ///   - staleAfter: Seconds without a sample before `stale`, > 0.
    public init(smoothing: Double = 0.25, maxRate: Double = 10, deadBand: Double = 0.5, staleAfter: Double = 5) {
        self.smoothing = smoothing
        self.maxRate = maxRate
        self.deadBand = deadBand
        self.staleAfter = staleAfter
    }

    /// Checks that every value is usable, so a typo fails at start-up instead of misbehaving later.
    /// - Throws: ``CompassServiceError/invalidConfiguration`` naming the bad option.
    public func validate() throws(CompassServiceError) {
        guard smoothing.isFinite, smoothing >= 0 else {
            throw .invalidConfiguration("--smoothing must be a finite number ≥ 0, not \(smoothing)")
        }
        guard maxRate.isFinite, maxRate > 0 else {
            throw .invalidConfiguration("--max-rate must be a finite number > 0, not \(maxRate)")
        }
        guard deadBand.isFinite, deadBand >= 0, deadBand < 180 else {
            throw .invalidConfiguration("--dead-band must be in 0..<180 degrees, not \(deadBand)")
        }
        guard staleAfter.isFinite, staleAfter > 0 else {
            throw .invalidConfiguration("--stale-after must be a finite number > 0, not \(staleAfter)")
        }
        guard maxDevices >= 1 else {
            throw .invalidConfiguration("--max-devices must be at least 1, not \(maxDevices)")
        }
        guard restoreQuietPeriod.isFinite, restoreQuietPeriod >= 0 else {
            throw .invalidConfiguration("the restore quiet period must be a finite number ≥ 0, not \(restoreQuietPeriod)")
        }
    }

    /// The shortest sample-time interval between two heading messages of one device, in seconds.
    var publishInterval: Double { 1 / maxRate }
}

extension CompassConfiguration {
    /// Reads the settings from configuration.
    ///
    /// Keys (each optional, defaults in ``defaults``): `smoothing` (double, seconds), `max.rate` (double, per
    /// second), `dead.band` (double, degrees), `stale.after` (double, seconds), `max.devices` (int).
    /// - Parameter config: The service's configuration.
    public init(config: ConfigReader) {
        let defaults = Self.defaults
        self.init(
            smoothing: config.double(forKey: "smoothing", default: defaults.smoothing),
            maxRate: config.double(forKey: "max.rate", default: defaults.maxRate),
            deadBand: config.double(forKey: "dead.band", default: defaults.deadBand),
            staleAfter: config.double(forKey: "stale.after", default: defaults.staleAfter))
        maxDevices = config.int(forKey: "max.devices", default: defaults.maxDevices)
    }
}
