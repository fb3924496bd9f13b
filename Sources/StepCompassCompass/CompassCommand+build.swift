import CompassService
import Configuration

extension CompassConfiguration {
    /// Reads the service's options from the configuration hierarchy (command line, environment,
    /// `Config/compass.json`), falling back to the contract's defaults.
    ///
    /// Keys: `smoothing` (seconds, 0.25), `max.rate` (per second, 10), `dead.band` (degrees, 0.5),
    /// `stale.after` (seconds, 5); as environment variables `SMOOTHING`, `MAX_RATE`, `DEAD_BAND`,
    /// `STALE_AFTER`.
    /// - Parameter config: The service's configuration reader.
    init(config: ConfigReader) {
        let defaults = CompassConfiguration()
        self.init(
            smoothing: config.double(forKey: "smoothing", default: defaults.smoothing),
            maxRate: config.double(forKey: "max.rate", default: defaults.maxRate),
            deadBand: config.double(forKey: "dead.band", default: defaults.deadBand),
            staleAfter: config.double(forKey: "stale.after", default: defaults.staleAfter))
    }
}
