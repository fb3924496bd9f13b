public import Configuration
import Foundation
public import JournalKit
import ServiceRuntime

/// The journal service's settings.
public struct JournalConfiguration: Sendable {
    /// The defaults: a photo point every 100 m, fixes up to 50 m accuracy, Wikimedia Commons, a 200 MB cache.
    public static let defaults = JournalConfiguration()

    /// The route's rules: photo spacing, accuracy limit, jitter spacing, GPS gap, jump speed.
    public var route: RouteTracker.Settings
    /// Start a walk at the first steps after ``restSeconds`` of rest, stop it after ``restSeconds`` of rest (`--auto`).
    public var auto: Bool
    public var restSeconds: Double
    /// Where the photo search looks around a photo point, metres; a search that finds nothing is tried once more
    /// with ``wideSearchRadius``.
    public var searchRadius: Int
    public var wideSearchRadius: Int
    /// The MediaWiki API of Wikimedia Commons (`--wikimedia-url`; a local server in tests and offline runs).
    public var wikimediaURL: String
    /// The Flickr REST endpoint (`--flickr-url`).
    public var flickrURL: String
    /// A Flickr API key (`--flickr-key`, a secret): with one, photos come from Flickr, and Wikimedia when Flickr
    /// refuses the key.
    public var flickrKey: String?
    /// Calls per hour the Flickr key may make, for every device together (Flickr allows 3,600).
    public var flickrCallsPerHour: Int
    /// The image cache's folder and size limit (least recently used out).
    public var cacheDirectory: String
    public var cacheLimitBytes: Int
    /// The largest image downloaded, and the largest search answer read.
    public var maximumImageBytes: Int
    public var maximumResponseBytes: Int
    /// Connect and overall timeouts of a photo service call.
    public var connectTimeout: Duration
    public var requestTimeout: Duration
    /// Lookups running at once (for all devices).
    public var concurrentLookups: Int
    /// The backoff of a failed lookup.
    public var retry: RetryPolicy
    /// Where the dashboard serves the cached images: a photo's `imageUrl` is this prefix and the file name.
    public var photoURLPrefix: String
    /// The User-Agent of every call, as Wikimedia asks: the software, a version and a contact.
    public var userAgent: String
    /// The SQLite database's folder (`journal.sqlite` in it), or a PostgreSQL URL (a secret).
    public var dataDirectory: String
    public var databaseURL: String?
    /// Longest wait for the retained `permissions` after subscribing (it normally ends in milliseconds).
    public var settleWindow: Duration
    /// The most messages handled between two writes.
    public var maximumBatch: Int

    public init(
        route: RouteTracker.Settings = .init(), auto: Bool = false, restSeconds: Double = 300, searchRadius: Int = 300,
        wideSearchRadius: Int = 1_000, wikimediaURL: String = "https://commons.wikimedia.org/w/api.php",
        flickrURL: String = "https://api.flickr.com/services/rest/", flickrKey: String? = nil, flickrCallsPerHour: Int = 3_400,
        cacheDirectory: String = ".data/journal/photos", cacheLimitBytes: Int = 200_000_000, maximumImageBytes: Int = 5_000_000,
        maximumResponseBytes: Int = 2_000_000, connectTimeout: Duration = .seconds(5), requestTimeout: Duration = .seconds(15),
        concurrentLookups: Int = 16, retry: RetryPolicy = .init(), photoURLPrefix: String = "/journal/photos/",
        userAgent: String = "StepCompass-journal/1.0 (https://github.com/stepcompass/stepcompass; walk journal)",
        dataDirectory: String = ".data/journal", databaseURL: String? = nil, settleWindow: Duration = .seconds(5),
        maximumBatch: Int = 1_000
    ) {
        self.route = route
        self.auto = auto
        self.restSeconds = restSeconds
        self.searchRadius = searchRadius
        self.wideSearchRadius = wideSearchRadius
        self.wikimediaURL = wikimediaURL
        self.flickrURL = flickrURL
        self.flickrKey = flickrKey
        self.flickrCallsPerHour = flickrCallsPerHour
        self.cacheDirectory = cacheDirectory
        self.cacheLimitBytes = cacheLimitBytes
        self.maximumImageBytes = maximumImageBytes
        self.maximumResponseBytes = maximumResponseBytes
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.concurrentLookups = concurrentLookups
        self.retry = retry
        self.photoURLPrefix = photoURLPrefix
        self.userAgent = userAgent
        self.dataDirectory = dataDirectory
        self.databaseURL = databaseURL
        self.settleWindow = settleWindow
        self.maximumBatch = maximumBatch
    }

    /// Reads the settings from configuration.
    ///
    /// Keys (each optional, defaults in ``defaults``): `photo.every` (metres), `max.accuracy` (metres), `auto` (bool),
    /// `rest.seconds`, `search.radius` (metres), `wikimedia.url`, `flickr.url`, `flickr.key` (secret),
    /// `flickr.calls.per.hour`, `cache.dir`, `cache.mb`, `max.image.mb`, `request.timeout.ms`, `lookups`,
    /// `retry.base.seconds`, `photo.url.prefix`, `data.dir`, `database.url` (secret), `settle.ms`.
    /// ``validate()`` reports values that cannot be used.
    public init(config: ConfigReader) {
        let d = Self.defaults
        let key = config.string(forKey: "flickr.key", isSecret: true)?.trimmingCharacters(in: .whitespaces)
        let url = config.string(forKey: "database.url", isSecret: true)?.trimmingCharacters(in: .whitespaces)
        var route = d.route
        route.photoEvery = config.number(forKey: "photo.every", default: route.photoEvery)
        route.maximumAccuracy = config.number(forKey: "max.accuracy", default: route.maximumAccuracy)
        self.init(
            route: route, auto: config.bool(forKey: "auto", default: d.auto),
            restSeconds: config.number(forKey: "rest.seconds", default: d.restSeconds),
            searchRadius: config.int(forKey: "search.radius", default: d.searchRadius),
            wideSearchRadius: max(config.int(forKey: "search.radius", default: d.searchRadius), d.wideSearchRadius),
            wikimediaURL: config.string(forKey: "wikimedia.url", default: d.wikimediaURL),
            flickrURL: config.string(forKey: "flickr.url", default: d.flickrURL),
            flickrKey: key?.isEmpty == false ? key : nil,
            flickrCallsPerHour: config.int(forKey: "flickr.calls.per.hour", default: d.flickrCallsPerHour),
            cacheDirectory: config.string(forKey: "cache.dir", default: d.cacheDirectory),
            // Clamped before the multiplication (a huge value must not trap); validate() names the range.
            cacheLimitBytes: min(max(config.int(forKey: "cache.mb", default: d.cacheLimitBytes / 1_000_000), 0), 1_000_000) * 1_000_000,
            maximumImageBytes: Int(
                min(max(config.number(forKey: "max.image.mb", default: Double(d.maximumImageBytes) / 1_000_000), 0), 1_000) * 1_000_000),
            requestTimeout: .milliseconds(config.int(forKey: "request.timeout.ms", default: 15_000)),
            concurrentLookups: config.int(forKey: "lookups", default: d.concurrentLookups),
            retry: RetryPolicy(base: config.number(forKey: "retry.base.seconds", default: d.retry.base), maximum: d.retry.maximum),
            photoURLPrefix: config.string(forKey: "photo.url.prefix", default: d.photoURLPrefix),
            dataDirectory: config.string(forKey: "data.dir", default: d.dataDirectory),
            databaseURL: url?.isEmpty == false ? url : nil,
            settleWindow: .milliseconds(config.int(forKey: "settle.ms", default: 5_000)))
    }

    /// Checks the values.
    /// - Throws: `ConfigurationError` naming the setting and what it must be.
    public func validate() throws {
        func check(_ ok: Bool, _ message: @autoclosure () -> String) throws {
            if !ok { throw ConfigurationError(message()) }
        }
        try check(
            route.photoEvery >= 10 && route.photoEvery <= 100_000, "the setting 'photo.every' is \(route.photoEvery); expected 10 to 100000 metres")
        try check(
            route.maximumAccuracy > 0 && route.maximumAccuracy <= 10_000,
            "the setting 'max.accuracy' is \(route.maximumAccuracy); expected more than 0 and at most 10000 metres")
        try check(restSeconds >= 1, "the setting 'rest.seconds' is \(restSeconds); expected 1 or more")
        try check((10...10_000).contains(searchRadius), "the setting 'search.radius' is \(searchRadius); expected 10 to 10000 metres")
        try check(
            flickrCallsPerHour >= 1 && flickrCallsPerHour <= 3_600,
            "the setting 'flickr.calls.per.hour' is \(flickrCallsPerHour); expected 1 to 3600 (Flickr's limit per key)")
        try check(cacheLimitBytes >= 1_000_000, "the setting 'cache.mb' is below 1; expected 1 or more")
        try check(maximumImageBytes >= 10_000, "the setting 'max.image.mb' is below 0.01")
        try check(
            maximumImageBytes <= cacheLimitBytes, "the setting 'max.image.mb' is larger than 'cache.mb': an image that size could never be cached")
        try check(requestTimeout >= .milliseconds(100), "the setting 'request.timeout.ms' is below 100")
        try check((1...256).contains(concurrentLookups), "the setting 'lookups' is \(concurrentLookups); expected 1 to 256")
        try check(retry.base >= 0.01, "the setting 'retry.base.seconds' is \(retry.base); expected 0.01 or more")
        for (name, value) in [("wikimedia.url", wikimediaURL), ("flickr.url", flickrURL)] {
            guard let url = URL(string: value), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
                throw ConfigurationError("the setting '\(name)' is '\(value.prefix(100))'; expected an http or https URL")
            }
        }
    }
}
