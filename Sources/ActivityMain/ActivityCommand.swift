import ActivityService
import ArgumentParser
import Configuration
import Foundation
import ServiceRuntime

/// `stepcompass-activity`: step history in a database, and the music that fits it.
@main
struct ActivityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-activity",
        abstract: "StepCompass activity: each device's step history per minute, hour and day, its week, and a playlist that fits.",
        discussion: """
            Subscribes to stepcompass/+/steps and stepcompass/+/permissions, keeps the history in SQLite (a file \
            in --data-dir, the default) or PostgreSQL (--database-url), publishes stepcompass/{device}/activity \
            (retained) and answers stepcompass/activity/history requests (MQTT 5 request/response, or replyTo and \
            correlationId in the payload). A device may give its own time zone in its permissions message: \
            {"motion": "authorized", "timeZone": "Europe/Berlin"}. Every option can also be set with the \
            environment variable of the same name (--time-zone is TIME_ZONE, --database-url is DATABASE_URL: \
            prefer the environment for it, it may hold a password) or in a JSON file (--config, default \
            Config/activity.json). Stop with SIGTERM or Ctrl-C.
            """)

    private static let defaults = ActivityConfiguration.defaults

    @OptionGroup var runtime: RuntimeOptions

    @OptionGroup var deviceLimit: DeviceLimitOptions

    @Option(name: .customLong("time-zone"), help: "IANA time zone of hours and days for devices that give none (default \(defaults.timeZone)).")
    var timeZone: String?

    @Option(name: .customLong("data-dir"), help: "Folder of the SQLite database activity.sqlite (default \(defaults.dataDirectory)).")
    var dataDirectory: String?

    @Option(
        name: .customLong("database-url"),
        help: "postgres://USER:PASSWORD@HOST:PORT/DATABASE: keep the history in PostgreSQL instead of SQLite (env DATABASE_URL).")
    var databaseURL: String?

    @Option(
        name: .customLong("retain-minutes-days"),
        help: "Days that per-minute history is kept; hours and days are kept for good (default \(defaults.retainMinutesDays)).")
    var retainMinutesDays: Int?

    @Option(
        name: .customLong("playlists"),
        help: "The playlist catalogue and its thresholds (default \(defaults.playlistsPath); the built-in catalogue when that file is missing).")
    var playlists: String?

    @Option(
        name: .customLong("publish-interval-ms"), help: "Shortest interval between two activity messages of a device, in milliseconds (default 1000)."
    )
    var publishIntervalMilliseconds: Int?

    @Option(
        name: .customLong("cadence-window-ms"),
        help: """
            Window of the cadence (steps per minute), in milliseconds (default \(defaults.cadenceWindow.inMilliseconds)): a device \
            that sends no steps for that long shows a cadence of 0.
            """)
    var cadenceWindowMilliseconds: Int?

    func run() async throws {
        var values = CommandLineValues()
        values.set("time.zone", timeZone)
        values.set("data.dir", dataDirectory)
        values.set("database.url", databaseURL, secret: true)
        values.set("retain.minutes.days", retainMinutesDays)
        values.set("playlists", playlists)
        values.set("publish.interval.ms", publishIntervalMilliseconds)
        values.set("cadence.window.ms", cadenceWindowMilliseconds)
        deviceLimit.set(into: &values)
        let runner = try await ServiceRunner.prepare(service: "activity", options: runtime, commandLine: values.values)
        try await runner.run { config, logger, bus in
            try buildActivity(config: config, logger: logger, bus: bus)
        }
    }
}
