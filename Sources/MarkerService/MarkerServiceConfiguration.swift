/// Everything the marker service can be told, with the contract's defaults.
///
/// Built by the executable from its configuration (``init(config:)``) and by tests directly, so a
/// test can shrink the timeouts and the backoff to milliseconds.
public struct MarkerServiceConfiguration: Sendable {
    /// The default source: the assignment's marker document.
    public static let defaultSource = "https://assets.acmeaom.com/interview-project/locations.json"

    /// The default file source limit: 2 GiB.
    public static let defaultMaxFileBytes = 2 * 1024 * 1024 * 1024

    /// An `http(s)://` URL or a file path.
    public var source: String
    /// Where fetched documents are kept for a restart without network; nil disables the cache.
    public var cacheDirectory: String?
    /// How long to wait for a TCP (and TLS) connection.
    public var connectTimeout: Duration
    /// How long the server may stay silent while the response is read.
    public var readTimeout: Duration
    /// A deadline for a whole fetch, so a server trickling bytes cannot hold a refresh for ever.
    public var fetchDeadline: Duration
    /// The largest HTTP body accepted, in bytes, checked while the body streams in.
    public var maxBodyBytes: Int
    /// The largest file source accepted, in bytes, checked before it is read (a file's size is known; the HTTP
    /// limit is against a server that sends without end, so a local file is not held to it).
    public var maxFileBytes: Int
    /// How many redirects a fetch follows (cycles are always refused).
    public var maxRedirects: Int
    /// How often the source is fetched again after a success.
    public var refreshInterval: Duration
    /// The first retry delay after a failure; it doubles on each further failure.
    public var retryBase: Duration
    /// The longest retry delay.
    public var retryMax: Duration
    /// Above this many markers the retained collection is not published.
    public var collectionLimit: Int
    /// How far, in metres, a device must move before its `nearby` list is published again.
    public var nearbyMinimumMove: Double
    /// How many markers a `nearby` message lists.
    public var nearbyCount: Int

    /// Creates a configuration; every parameter has the contract's default.
    /// - Parameters:
    ///   - source: An `http(s)://` URL or a file path.
    ///   - cacheDirectory: The disk cache folder, or nil for none.
    ///   - connectTimeout: The connect timeout.
    ///   - readTimeout: The read (idle) timeout.
    ///   - fetchDeadline: The deadline of one whole fetch.
    ///   - maxBodyBytes: The HTTP body size limit.
    ///   - maxFileBytes: The file source size limit.
    ///   - maxRedirects: The redirect limit.
    ///   - refreshInterval: The refresh period after a success.
    ///   - retryBase: The first retry delay.
    ///   - retryMax: The largest retry delay.
    ///   - collectionLimit: The largest collection published.
    ///   - nearbyMinimumMove: Metres a device moves before `nearby` is republished.
    ///   - nearbyCount: Markers per `nearby` message.
    public init(
        source: String = MarkerServiceConfiguration.defaultSource,
        cacheDirectory: String? = ".cache/markers",
        connectTimeout: Duration = .seconds(10),
        readTimeout: Duration = .seconds(30),
        fetchDeadline: Duration = .seconds(300),
        maxBodyBytes: Int = 64 * 1024 * 1024,
        maxFileBytes: Int = MarkerServiceConfiguration.defaultMaxFileBytes,
        maxRedirects: Int = 5,
        refreshInterval: Duration = .seconds(900),
        retryBase: Duration = .seconds(1),
        retryMax: Duration = .seconds(300),
        collectionLimit: Int = 10_000,
        nearbyMinimumMove: Double = 25,
        nearbyCount: Int = 3
    ) {
        self.source = source
        self.cacheDirectory = cacheDirectory
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.fetchDeadline = fetchDeadline
        self.maxBodyBytes = maxBodyBytes
        self.maxFileBytes = maxFileBytes
        self.maxRedirects = maxRedirects
        self.refreshInterval = refreshInterval
        self.retryBase = retryBase
        self.retryMax = retryMax
        self.collectionLimit = collectionLimit
        self.nearbyMinimumMove = nearbyMinimumMove
        self.nearbyCount = nearbyCount
    }
}
