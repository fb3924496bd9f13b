public import ActivityKit
public import ActivityStore
public import Bus
public import Configuration
import Foundation
public import Logging
public import ServiceLifecycle
import ServiceRuntime

/// Builds the activity service (`stepcompass-activity`) over `bus`: the executable's `main` runs the group with
/// signal handling, and tests run it over an in-memory bus.
///
/// The store is PostgreSQL when `database.url` is set, else SQLite in `data.dir` (`activity.sqlite`, created with
/// its folder); its schema is migrated when the service starts.
/// - Parameters:
///   - config: The configuration (``ActivityConfiguration/init(config:)`` and `topic.prefix`).
///   - logger: The service's logger.
///   - bus: The bus, not yet connected.
/// - Returns: The bus connection and the service, in one group.
/// - Throws: `ConfigurationError` for a setting that cannot be used, an invalid playlist catalogue, a database URL
///   that is not one, or a data folder that cannot be created.
public func buildActivity(config: ConfigReader, logger: Logger, bus: any ConnectableBus) throws -> ServiceGroup {
    let configuration = ActivityConfiguration(config: config)
    try configuration.validate(config: config)
    let catalogue = try configuration.loadCatalogue()  // refused before a database is created or opened
    return try buildActivity(
        config: config, logger: logger, bus: bus, configuration: configuration,
        store: makeActivityStore(configuration: configuration, logger: logger), catalogue: catalogue)
}

/// Builds the activity service with `configuration` and `store` (tests pass their own store), and the playlist
/// catalogue when it was already read, on `clock` (cadence windows, publish intervals, retention; tests pass a manual
/// one).
public func buildActivity(
    config: ConfigReader, logger: Logger, bus: any ConnectableBus, configuration: ActivityConfiguration, store: any ActivityStore,
    catalogue: PlaylistCatalogue? = nil, clock: some Clock<Duration> = ContinuousClock()
) throws -> ServiceGroup {
    let catalogue = try catalogue ?? configuration.loadCatalogue()
    let runtime = BusRuntime(service: "activity", config: config, logger: logger, bus: bus, clock: ServiceClock(clock))
    let service = ActivityService(configuration: configuration, catalogue: catalogue, store: store, context: runtime.context)
    return runtime.group([service])
}

/// The store the configuration names: PostgreSQL for a `database.url`, else the SQLite file in `data.dir`.
public func makeActivityStore(configuration: ActivityConfiguration, logger: Logger) throws -> any ActivityStore {
    try openStore(
        databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory, fileName: "activity.sqlite",
        what: "activity history", logger: logger,
        postgres: { try PostgresActivityStore(url: $0, logger: logger) }, sqlite: { try SQLiteActivityStore(path: $0) })
}
