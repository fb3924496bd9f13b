public import Configuration
import ServiceRuntime

extension MarkerServiceConfiguration {
    /// Reads the configuration, falling back to the defaults of ``MarkerServiceConfiguration``'s initializer.
    ///
    /// Keys (durations in seconds, as numbers): `source`, `cache.dir` (an empty string disables the
    /// cache), `connect.timeout`, `read.timeout`, `fetch.deadline`, `max.body` (bytes),
    /// `max.redirects`, `refresh.interval`, `retry.base`, `retry.max`, `collection.limit`,
    /// `nearby.distance` (metres), `nearby.count`. As environment variables: `SOURCE`,
    /// `CACHE_DIR`, `CONNECT_TIMEOUT`, and so on. `max.file.size` (`MAX_FILE_SIZE`, bytes) is the file source's
    /// limit; `max.body` applies to HTTP only.
    /// - Parameter config: The service's configuration reader.
    /// - Throws: ``MarkerServiceError`` when a value is out of range.
    public init(config: ConfigReader) throws(MarkerServiceError) {
        let defaults = MarkerServiceConfiguration()
        func seconds(_ key: String, _ fallback: Duration) throws(MarkerServiceError) -> Duration {
            let value = config.number(forKey: ConfigKey(key))
            guard let value else { return fallback }
            guard value.isFinite, value >= 0 else {
                throw MarkerServiceError(
                    .invalidConfiguration, "'\(key)' must be a number of seconds >= 0, got \(value)")
            }
            return .milliseconds(Int64((value * 1000).rounded()))
        }
        func integer(_ key: String, _ fallback: Int, minimum: Int) throws(MarkerServiceError) -> Int {
            let value = config.int(forKey: ConfigKey(key)) ?? fallback
            guard value >= minimum else {
                throw MarkerServiceError(.invalidConfiguration, "'\(key)' must be at least \(minimum), got \(value)")
            }
            return value
        }
        let cache = config.string(forKey: "cache.dir", default: defaults.cacheDirectory ?? "")
        let distance = config.number(forKey: "nearby.distance", default: defaults.nearbyMinimumMove)
        guard distance.isFinite, distance >= 0 else {
            throw MarkerServiceError(.invalidConfiguration, "'nearby.distance' must be a number of metres >= 0")
        }
        self.init(
            source: config.string(forKey: "source", default: defaults.source),
            cacheDirectory: cache.isEmpty ? nil : cache,
            connectTimeout: try seconds("connect.timeout", defaults.connectTimeout),
            readTimeout: try seconds("read.timeout", defaults.readTimeout),
            fetchDeadline: try seconds("fetch.deadline", defaults.fetchDeadline),
            maxBodyBytes: try integer("max.body", defaults.maxBodyBytes, minimum: 1),
            maxFileBytes: try integer("max.file.size", defaults.maxFileBytes, minimum: 1),
            maxRedirects: try integer("max.redirects", defaults.maxRedirects, minimum: 0),
            refreshInterval: try seconds("refresh.interval", defaults.refreshInterval),
            retryBase: try seconds("retry.base", defaults.retryBase),
            retryMax: try seconds("retry.max", defaults.retryMax),
            collectionLimit: try integer("collection.limit", defaults.collectionLimit, minimum: 0),
            nearbyMinimumMove: distance,
            nearbyCount: try integer("nearby.count", defaults.nearbyCount, minimum: 1))
        guard MarkerSource(source) != nil else {
            throw MarkerServiceError(
                .invalidConfiguration, "'source' must be an http(s):// URL or a file path, got '\(source)'")
        }
    }
}
