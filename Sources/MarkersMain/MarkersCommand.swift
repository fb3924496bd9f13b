import ArgumentParser
import Configuration
import MarkerService
import ServiceRuntime

/// `stepcompass-markers`: the marker geodata service (GeoJSON markers and their nearest neighbours).
@main
struct MarkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-markers",
        abstract: "StepCompass the marker geodata service (GeoJSON markers and their nearest neighbours).",
        discussion: """
            Every option can also be set with the environment variable of the same name (--mqtt-host is \
            MQTT_HOST, --source is SOURCE) or in a JSON file (--config, default Config/markers.json). Topics \
            and payloads follow the StepCompass bus contract (Docs/asyncapi.yaml). Stop with SIGTERM or \
            Ctrl-C: the service publishes its offline status and disconnects cleanly.
            """)

    @OptionGroup var runtime: RuntimeOptions

    @Option(
        help:
            "Marker source: an http(s):// URL or a GeoJSON file path (env SOURCE, default the acmeaom locations.json).")
    var source: String?

    @Option(
        name: .customLong("cache-dir"),
        help: "Disk cache folder; empty disables it (env CACHE_DIR, default .cache/markers).")
    var cacheDirectory: String?

    @Option(name: .customLong("connect-timeout"), help: "Connect timeout in seconds (env CONNECT_TIMEOUT, default 10).")
    var connectTimeout: Double?

    @Option(name: .customLong("read-timeout"), help: "Read timeout in seconds (env READ_TIMEOUT, default 30).")
    var readTimeout: Double?

    @Option(
        name: .customLong("fetch-deadline"),
        help: "Deadline of one whole fetch in seconds (env FETCH_DEADLINE, default 300).")
    var fetchDeadline: Double?

    @Option(
        name: .customLong("max-body"),
        help: "Largest HTTP body in bytes; a file source has --max-file-size (env MAX_BODY, default 67108864).")
    var maxBody: Int?

    @Option(
        name: .customLong("max-file-size"),
        help: "Largest file source in bytes, checked before reading (env MAX_FILE_SIZE, default 2147483648).")
    var maxFileSize: Int?

    @Option(
        name: .customLong("max-redirects"),
        help: "Redirects followed; loops are refused (env MAX_REDIRECTS, default 5).")
    var maxRedirects: Int?

    @Option(
        name: .customLong("refresh-interval"),
        help: """
            Seconds between refreshes, and before the next try after a permanent failure: too large, not JSON, not \
            a FeatureCollection (env REFRESH_INTERVAL, default 900).
            """)
    var refreshInterval: Double?

    @Option(
        name: .customLong("retry-base"),
        help: "First retry delay in seconds after a transient failure (env RETRY_BASE, default 1).")
    var retryBase: Double?

    @Option(name: .customLong("retry-max"), help: "Longest retry delay in seconds (env RETRY_MAX, default 300).")
    var retryMax: Double?

    @Option(
        name: .customLong("collection-limit"),
        help: "Most markers published as the retained collection (env COLLECTION_LIMIT, default 10000).")
    var collectionLimit: Int?

    @Option(
        name: .customLong("nearby-distance"),
        help: "Metres a device moves before its nearby list is republished (env NEARBY_DISTANCE, default 25).")
    var nearbyDistance: Double?

    @Option(name: .customLong("nearby-count"), help: "Markers per nearby list, 1...50 (env NEARBY_COUNT, default 3).")
    var nearbyCount: Int?

    /// The service's own options as configuration keys.
    var commandLineValues: [AbsoluteConfigKey: ConfigValue] {
        var values = CommandLineValues()
        values.set("source", source)
        values.set("cache.dir", cacheDirectory)
        let doubles: [(String, Double?)] = [
            ("connect.timeout", connectTimeout), ("read.timeout", readTimeout), ("fetch.deadline", fetchDeadline),
            ("refresh.interval", refreshInterval), ("retry.base", retryBase), ("retry.max", retryMax),
            ("nearby.distance", nearbyDistance),
        ]
        for (name, value) in doubles { values.set(name, value) }
        let ints: [(String, Int?)] = [
            ("max.body", maxBody), ("max.file.size", maxFileSize), ("max.redirects", maxRedirects), ("collection.limit", collectionLimit),
            ("nearby.count", nearbyCount),
        ]
        for (name, value) in ints { values.set(name, value) }
        return values.values
    }

    func run() async throws {
        let runner = try await ServiceRunner.prepare(
            service: "markers", options: runtime, commandLine: commandLineValues)
        try await runner.run { config, logger, bus in
            try buildMarkers(config: config, logger: logger, bus: bus)
        }
    }
}
