import ArgumentParser
import Configuration
import Foundation
import JournalKit
import JournalService
import ServiceRuntime

/// `stepcompass-journal`: a photo of the place every 100 m of a walk, the route, and GPX export.
@main
struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-journal",
        abstract: "StepCompass journal: the route of each walk, a public photo of the place every 100 m (never twice in a walk), and GPX export.",
        discussion: """
            A walk starts and stops with stepcompass/{device}/cmd/walk ({"action": "start", "name": "..."} or \
            {"action": "stop"}; `stepcompass walk start|stop`), and with --auto at the first steps after 5 minutes of \
            rest and after 5 minutes of rest. While a walk is on and the device's location permission is authorized, \
            GPS fixes (no worse than --max-accuracy) and, where there is no good fix, the dead-reckoned position make \
            the route; every --photo-every metres along it the journal finds a photo near the walker on Wikimedia \
            Commons (no key), or on Flickr with --flickr-key (env FLICKR_KEY; prefer the environment, it is a secret). \
            Images are cached in --cache-dir, which the dashboard serves. A photo service that fails never stops \
            the walk: the point waits as "no photo yet" and is retried with backoff. It publishes \
            stepcompass/{device}/journal (retained) and stepcompass/{device}/journal/photo, and answers \
            stepcompass/journal/walks requests (a device's walks, one walk, or its GPX). Walks are kept in SQLite \
            (--data-dir) or PostgreSQL (--database-url). Every option can also be set with the environment variable \
            of the same name (--photo-every is PHOTO_EVERY) or in a JSON file (--config, default Config/journal.json). \
            Stop with SIGTERM or Ctrl-C.
            """)

    private static let defaults = JournalConfiguration.defaults

    @OptionGroup var runtime: RuntimeOptions

    @Option(name: .customLong("photo-every"), help: "Metres along the walk between two photo points (default \(Int(defaults.route.photoEvery))).")
    var photoEvery: Double?

    @Option(
        name: .customLong("max-accuracy"),
        help: "Ignore GPS fixes with a horizontal accuracy worse than this, in metres (default \(Int(defaults.route.maximumAccuracy))).")
    var maxAccuracy: Double?

    @Flag(name: .customLong("auto"), help: "Start a walk at the first steps after 5 minutes of rest, stop it after 5 minutes of rest.")
    var auto = false

    @Option(name: .customLong("rest-seconds"), help: "The rest that starts and stops a walk with --auto, in seconds (default 300).")
    var restSeconds: Double?

    @Option(
        name: .customLong("search-radius"),
        help:
            "How far from a photo point to look for photos, in metres (default \(defaults.searchRadius); once more at \(defaults.wideSearchRadius) when nothing is found)."
    )
    var searchRadius: Int?

    @Option(
        name: .customLong("wikimedia-url"), help: "The MediaWiki API to search (default \(defaults.wikimediaURL)); a local server for offline runs.")
    var wikimediaURL: String?

    @Option(name: .customLong("flickr-key"), help: "A Flickr API key: search Flickr instead (env FLICKR_KEY). Never logged.")
    var flickrKey: String?

    @Option(name: .customLong("flickr-url"), help: "The Flickr REST endpoint (default \(defaults.flickrURL)).")
    var flickrURL: String?

    @Option(
        name: .customLong("flickr-calls-per-hour"),
        help: "Flickr calls per hour for all devices together (default \(defaults.flickrCallsPerHour); Flickr allows 3600 per key).")
    var flickrCallsPerHour: Int?

    @Option(name: .customLong("cache-dir"), help: "Folder of the cached images, which the dashboard serves (default \(defaults.cacheDirectory)).")
    var cacheDirectory: String?

    @Option(
        name: .customLong("cache-mb"),
        help: "Size limit of the image cache in megabytes; least recently used images go first (default \(defaults.cacheLimitBytes / 1_000_000)).")
    var cacheMegabytes: Int?

    @Option(name: .customLong("lookups"), help: "Photo lookups at once, for all devices (default \(defaults.concurrentLookups)).")
    var lookups: Int?

    @Option(name: .customLong("data-dir"), help: "Folder of the SQLite database journal.sqlite (default \(defaults.dataDirectory)).")
    var dataDirectory: String?

    @Option(
        name: .customLong("database-url"),
        help: "postgres://USER:PASSWORD@HOST:PORT/DATABASE: keep walks in PostgreSQL instead of SQLite (env DATABASE_URL).")
    var databaseURL: String?

    func run() async throws {
        var values = CommandLineValues()
        values.set("photo.every", photoEvery)
        values.set("max.accuracy", maxAccuracy)
        if auto { values.set("auto", ConfigContent.bool(true)) }
        values.set("rest.seconds", restSeconds)
        values.set("search.radius", searchRadius)
        values.set("wikimedia.url", wikimediaURL)
        values.set("flickr.key", flickrKey, secret: true)
        values.set("flickr.url", flickrURL)
        values.set("flickr.calls.per.hour", flickrCallsPerHour)
        values.set("cache.dir", cacheDirectory)
        values.set("cache.mb", cacheMegabytes)
        values.set("lookups", lookups)
        values.set("data.dir", dataDirectory)
        values.set("database.url", databaseURL, secret: true)
        let runner = try await ServiceRunner.prepare(service: "journal", options: runtime, commandLine: values.values)
        try await runner.run { config, logger, bus in
            try buildJournal(config: config, logger: logger, bus: bus)
        }
    }
}
