import AsyncHTTPClient
public import Bus
public import Configuration
import Foundation
import JournalKit
public import JournalStore
public import Logging
import NIOCore
public import ServiceLifecycle
import ServiceRuntime

/// Builds the journal service (`stepcompass-journal`) over `bus`: the executable's `main` runs the group with signal
/// handling, and tests run it over an in-memory bus.
///
/// The store is PostgreSQL when `database.url` is set, else SQLite in `data.dir` (`journal.sqlite`); the image cache
/// is `cache.dir`.
/// - Throws: `ConfigurationError` for a setting that cannot be used, a database URL that is not one, or a folder that
///   cannot be created.
public func buildJournal(config: ConfigReader, logger: Logger, bus: any ConnectableBus) throws -> ServiceGroup {
    let configuration = JournalConfiguration(config: config)
    try configuration.validate()
    return try buildJournal(
        config: config, logger: logger, bus: bus, configuration: configuration,
        store: makeJournalStore(configuration: configuration, logger: logger))
}

/// Builds the journal service with `configuration` and `store` (tests pass their own).
public func buildJournal(
    config: ConfigReader, logger: Logger, bus: any ConnectableBus, configuration: JournalConfiguration, store: any JournalStore,
    clock: some Clock<Duration> = ContinuousClock()
) throws -> ServiceGroup {
    let cache: ImageCache
    do {
        cache = try ImageCache(directory: configuration.cacheDirectory, limit: configuration.cacheLimitBytes, logger: logger)
    } catch {
        throw ConfigurationError("the setting 'cache.dir' ('\(configuration.cacheDirectory.prefix(200))'): \(error)")
    }
    let runtime = BusRuntime(service: "journal", config: config, logger: logger, bus: bus, clock: ServiceClock(clock))
    let client = PhotoHTTPClient(configuration: configuration)
    let finder = PhotoFinder(
        configuration: configuration, client: client.client, cache: cache, logger: logger, clock: runtime.context.clock)
    let service = JournalService(configuration: configuration, store: store, finder: finder, context: runtime.context)
    if configuration.flickrKey != nil {
        logger.info(
            "photos from Flickr (the key is set), Wikimedia Commons if Flickr refuses it",
            metadata: [
                "journal.flickrCallsPerHour": "\(configuration.flickrCallsPerHour)"
            ])
    } else {
        logger.info("photos from Wikimedia Commons", metadata: ["journal.wikimediaURL": "\(configuration.wikimediaURL)"])
    }
    // The group stops its services in reverse order: the journal before the HTTP client its lookups use.
    return runtime.group([client, service])
}

/// The HTTP client of the photo lookups, as a service of the group: shut down after the journal stops.
struct PhotoHTTPClient: Service {
    let client: HTTPClient

    init(configuration: JournalConfiguration) {
        var settings = HTTPClient.Configuration.singletonConfiguration
        settings.timeout = HTTPClient.Configuration.Timeout(
            connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.requestTimeout))
        settings.redirectConfiguration = .follow(max: 5, allowCycles: false)
        settings.connectionPool.retryConnectionEstablishment = false
        settings.connectionPool.idleTimeout = .seconds(30)
        settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, configuration.concurrentLookups)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}

/// The store the configuration names: PostgreSQL for a `database.url`, else the SQLite file in `data.dir`.
public func makeJournalStore(configuration: JournalConfiguration, logger: Logger) throws -> any JournalStore {
    try openStore(
        databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory, fileName: "journal.sqlite",
        what: "walks", logger: logger,
        postgres: { try PostgresJournalStore(url: $0, logger: logger) }, sqlite: { try SQLiteJournalStore(path: $0) })
}
