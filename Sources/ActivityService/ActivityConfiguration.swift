public import ActivityKit
public import Configuration
import Foundation
import ServiceRuntime

/// The activity service's settings.
public struct ActivityConfiguration: Sendable {
    /// The defaults: UTC, the SQLite file under `.data/activity`, minutes kept 35 days, `Config/playlists.json`,
    /// at most one `activity` message a second per device.
    public static let defaults = ActivityConfiguration()

    /// The time zone of hours and days for devices that do not give their own (`--time-zone`, an IANA name).
    public var timeZone: String
    /// The folder of the SQLite database (`--data-dir`); the file is `activity.sqlite` in it.
    public var dataDirectory: String
    /// A PostgreSQL URL (`--database-url`, a secret): when set, the history is kept there instead of SQLite.
    public var databaseURL: String?
    /// Days that minute buckets are kept (`--retain-minutes-days`); hours and days are kept for good.
    public var retainMinutesDays: Int
    /// The playlist catalogue's file (`--playlists`); the built-in catalogue when it is the default and missing.
    public var playlistsPath: String
    /// The shortest interval between two `activity` messages of a device.
    public var publishInterval: Duration
    /// Longest wait for the retained `permissions` after subscribing (it normally ends in milliseconds).
    public var settleWindow: Duration
    /// The most step messages written in one transaction.
    public var maximumBatch: Int
    /// The window of the cadence (a minute): a device that sends no steps for that long is republished with a
    /// cadence of 0, measured on the service's clock from the last step message received.
    public var cadenceWindow: Duration
    /// The most devices whose state is kept in memory (`--max-devices`, default 100,000): when full, a new device
    /// takes the place of the one idle the longest if it has been idle a minute, else its messages are rejected
    /// (``DeviceTable``). An evicted device's history stays in the store.
    public var maxDevices: Int = DeviceTable<Void>.defaultCapacity

    public init(
        timeZone: String = "UTC", dataDirectory: String = ".data/activity",
        databaseURL: String? = nil, retainMinutesDays: Int = 35, playlistsPath: String = "Config/playlists.json",
        publishInterval: Duration = .seconds(1), settleWindow: Duration = .seconds(5), maximumBatch: Int = 2_000,
        cadenceWindow: Duration = .seconds(60)
    ) {
        self.timeZone = timeZone
        self.dataDirectory = dataDirectory
        self.databaseURL = databaseURL
        self.retainMinutesDays = retainMinutesDays
        self.playlistsPath = playlistsPath
        self.publishInterval = publishInterval
        self.settleWindow = settleWindow
        self.maximumBatch = maximumBatch
        self.cadenceWindow = cadenceWindow
    }

    /// Reads the settings from configuration.
    ///
    /// Keys (each optional, defaults in ``defaults``): `time.zone` (IANA name), `data.dir`, `database.url` (secret),
    /// `retain.minutes.days` (int), `playlists` (path), `publish.interval.ms` (int), `settle.ms` (int),
    /// `batch.max` (int), `cadence.window.ms` (int), `max.devices` (int). ``validate(config:)`` reports the values that cannot be used.
    public init(config: ConfigReader) {
        let defaults = Self.defaults
        let zone = config.string(forKey: "time.zone").map { $0.trimmingCharacters(in: .whitespaces) }.flatMap {
            TimeZone(identifier: $0) == nil ? nil : $0
        }
        let url = config.string(forKey: "database.url", isSecret: true)?.trimmingCharacters(in: .whitespaces)
        self.init(
            timeZone: zone ?? defaults.timeZone,
            dataDirectory: config.string(forKey: "data.dir", default: defaults.dataDirectory),
            databaseURL: url?.isEmpty == false ? url : nil,
            retainMinutesDays: config.int(forKey: "retain.minutes.days", default: defaults.retainMinutesDays),
            playlistsPath: config.string(forKey: "playlists", default: defaults.playlistsPath),
            publishInterval: .milliseconds(config.int(forKey: "publish.interval.ms", default: 1_000)),
            settleWindow: .milliseconds(config.int(forKey: "settle.ms", default: 5_000)),
            maximumBatch: config.int(forKey: "batch.max", default: defaults.maximumBatch),
            cadenceWindow: .milliseconds(config.int(forKey: "cadence.window.ms", default: Int(defaults.cadenceWindow.inMilliseconds))))
        maxDevices = config.int(forKey: "max.devices", default: defaults.maxDevices)
    }

    /// The calendar of ``timeZone`` (UTC when it is not a known zone: ``validate(config:)`` refuses that).
    public var calendar: ActivityCalendar {
        ActivityCalendar(identifier: timeZone) ?? .utc
    }

    /// Checks what ``init(config:)`` read leniently.
    /// - Throws: `ConfigurationError` for an unknown time zone, days below 1, a batch below 1, a negative interval.
    public func validate(config: ConfigReader) throws {
        if let zone = config.string(forKey: "time.zone"), TimeZone(identifier: zone.trimmingCharacters(in: .whitespaces)) == nil {
            throw ConfigurationError("the setting 'time.zone' is '\(zone.prefix(60))'; expected an IANA time zone such as UTC or Europe/Berlin")
        }
        guard retainMinutesDays >= 1 else {
            throw ConfigurationError("the setting 'retain.minutes.days' is \(retainMinutesDays); expected 1 or more")
        }
        guard maximumBatch >= 1 else { throw ConfigurationError("the setting 'batch.max' is \(maximumBatch); expected 1 or more") }
        guard maxDevices >= 1 else { throw ConfigurationError("the setting 'max.devices' is \(maxDevices); expected 1 or more") }
        guard publishInterval >= .zero else { throw ConfigurationError("the setting 'publish.interval.ms' is negative") }
        guard cadenceWindow >= .seconds(1) else {
            throw ConfigurationError("the setting 'cadence.window.ms' is \(cadenceWindow.inMilliseconds); expected 1000 or more")
        }
    }

    /// The playlist catalogue: the file at ``playlistsPath``, or the built-in one when the default file is missing.
    /// - Throws: `ConfigurationError` for a file that is not a valid catalogue, or a missing file that was asked for.
    public func loadCatalogue() throws -> PlaylistCatalogue {
        guard let data = FileManager.default.contents(atPath: playlistsPath) else {
            if playlistsPath == Self.defaults.playlistsPath { return .standard }
            throw ConfigurationError("the playlist catalogue '\(playlistsPath)' cannot be read")
        }
        do {
            return try PlaylistCatalogue.decode(data)
        } catch {
            throw ConfigurationError("\(playlistsPath): \(error.description)")
        }
    }
}
