public import Configuration

/// The dashboard's settings: where it listens and how much it keeps.
public struct DashboardConfiguration: Sendable, Hashable {
    /// The address to listen on. Loopback by default: the dashboard can send commands and has no login,
    /// so it is only reachable from elsewhere when asked for (`HTTP_HOST=0.0.0.0`, as in the container).
    public var httpHost: String
    /// The HTTP port (the contract's `--http-port`, default 8080); 0 picks a free one.
    public var httpPort: Int
    /// Positions kept per device for the walked path.
    public var pathLimit: Int
    /// Devices tracked at most.
    public var maxDevices: Int
    /// The most events a second per browser for the followed device (coalesced, never queued).
    public var maxEventRate: Double
    /// How long a request to a service (nearest markers, step history, walks) waits for the answer, in seconds.
    public var requestTimeout: Double
    /// The journal's image cache (its `--cache-dir`), served at `/journal/photos/{file}`; relative to the working
    /// directory like the journal's own default.
    public var journalCacheDirectory: String
    /// The page's map: Leaflet's folder and the tile URL (see ``MapSettings``).
    public var map: MapSettings

    public init(
        httpHost: String = "127.0.0.1", httpPort: Int = 8080, pathLimit: Int = 2_000, maxDevices: Int = 10_000,
        maxEventRate: Double = 10, requestTimeout: Double = 5, journalCacheDirectory: String = ".data/journal/photos",
        map: MapSettings = .defaults
    ) {
        self.httpHost = httpHost
        self.httpPort = httpPort
        self.pathLimit = pathLimit
        self.maxDevices = maxDevices
        self.maxEventRate = maxEventRate
        self.requestTimeout = requestTimeout
        self.journalCacheDirectory = journalCacheDirectory
        self.map = map
    }

    /// Checks every value, naming the option that is wrong.
    public func validate() throws(DashboardServiceError) {
        guard !httpHost.isEmpty else { throw .invalidConfiguration("--http-host must not be empty") }
        guard (0...65_535).contains(httpPort) else {
            throw .invalidConfiguration("--http-port must be 0...65535, got \(httpPort)")
        }
        guard pathLimit >= 2 else { throw .invalidConfiguration("--path-limit must be at least 2, got \(pathLimit)") }
        guard maxDevices >= 1 else { throw .invalidConfiguration("--max-devices must be at least 1, got \(maxDevices)") }
        guard maxEventRate.isFinite, maxEventRate > 0, maxEventRate <= 100 else {
            throw .invalidConfiguration("--max-event-rate must be in (0, 100] per second, got \(maxEventRate)")
        }
        guard requestTimeout.isFinite, requestTimeout > 0, requestTimeout <= 60 else {
            throw .invalidConfiguration("--request-timeout must be in (0, 60] seconds, got \(requestTimeout)")
        }
        guard !journalCacheDirectory.isEmpty else { throw .invalidConfiguration("--journal-cache-dir must not be empty") }
        try map.validate()
    }
}

extension DashboardConfiguration {
    /// The defaults: 127.0.0.1:8080, 2,000 positions of path, 10,000 devices, 10 updates a second, a 5 s
    /// request timeout, the journal's images in `.data/journal/photos` (the journal's default `--cache-dir`).
    public static let defaults = DashboardConfiguration()

    /// Reads the settings from configuration and validates them.
    ///
    /// Keys (each optional, defaults in ``defaults``): `http.host` (string), `http.port` (int), `path.limit`
    /// (int), `max.devices` (int), `max.event.rate` (double, per second), `request.timeout` (double, seconds),
    /// `journal.cache.dir` (string, env `JOURNAL_CACHE_DIR`), and the map's `leaflet.dir` and `tile.url` (``MapSettings``).
    /// - Parameter config: The service's configuration.
    /// - Throws: ``DashboardServiceError/invalidConfiguration(_:)`` naming the option.
    public init(config: ConfigReader) throws(DashboardServiceError) {
        let defaults = Self.defaults
        self.init(
            httpHost: config.string(forKey: "http.host", default: defaults.httpHost),
            httpPort: config.int(forKey: "http.port", default: defaults.httpPort),
            pathLimit: config.int(forKey: "path.limit", default: defaults.pathLimit),
            maxDevices: config.int(forKey: "max.devices", default: defaults.maxDevices),
            maxEventRate: config.double(forKey: "max.event.rate", default: defaults.maxEventRate),
            requestTimeout: config.double(forKey: "request.timeout", default: defaults.requestTimeout),
            journalCacheDirectory: config.string(forKey: "journal.cache.dir", default: defaults.journalCacheDirectory),
            map: try MapSettings(config: config))
        try validate()
    }
}
