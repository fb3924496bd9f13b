import ArgumentParser
import Configuration
import DashboardService
import ServiceRuntime

/// `stepcompass-dashboard`: the web dashboard (the live step compass a person looks at).
@main
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-dashboard",
        abstract: "StepCompass web dashboard: steps, heading, compass rose, position, bearing lock, markers and walk journal, live.",
        discussion: """
            Serves one page on --http-port (default 8080) that updates live (Server-Sent Events) from the \
            bus, and sends the page's commands (bearing lock, north, calibration, marker refresh, walk \
            start and stop) to the services. The Journal panel shows the walk journal's current walk, its \
            photos (the images served from --journal-cache-dir) and the past walks with GPX downloads. The \
            markers and the walk are on an OpenStreetMap map (Leaflet from --leaflet-dir, tiles from --tile-url) \
            when both can be loaded, else drawn without one. It \
            listens on 127.0.0.1 unless --http-host says otherwise (0.0.0.0 in a container). With \
            --auth-token or --auth-token-file every API call, the event stream and the photos need that \
            token (Authorization: Bearer TOKEN; the page asks for it once and keeps it); the page's own \
            files and /healthz stay open. Listening on anything but loopback requires a token. Every \
            option can also be set with the environment variable of the same \
            name (--http-port is HTTP_PORT, --mqtt-host is MQTT_HOST) or in a JSON file (--config, default \
            Config/dashboard.json). Stop with SIGTERM or Ctrl-C.

            Example: stepcompass-dashboard --mqtt-port 1883 --http-port 8080, then open http://localhost:8080/
            """)

    @OptionGroup var runtime: RuntimeOptions

    @Option(name: .customLong("http-port"), help: "HTTP port of the page (env HTTP_PORT, default 8080; 0 picks a free port).")
    var httpPort: Int?

    @Option(name: .customLong("http-host"), help: "Address to listen on (env HTTP_HOST, default 127.0.0.1; 0.0.0.0 for every interface).")
    var httpHost: String?

    @Option(name: .customLong("path-limit"), help: "Positions kept per device for the walked path (env PATH_LIMIT, default 2000).")
    var pathLimit: Int?

    @Option(name: .customLong("max-devices"), help: "Devices tracked at most; later ones are ignored (env MAX_DEVICES, default 10000).")
    var maxDevices: Int?

    @Option(name: .customLong("max-event-rate"), help: "Most live updates a second per browser (env MAX_EVENT_RATE, default 10).")
    var maxEventRate: Double?

    @Option(
        name: .customLong("request-timeout"),
        help: "Seconds to wait for a service's reply: nearest markers, step history, walks (env REQUEST_TIMEOUT, default 5).")
    var requestTimeout: Double?

    @Flag(name: .customLong("home-assistant"), help: "Publish Home Assistant MQTT discovery: a device per walker (env HOME_ASSISTANT=true).")
    var homeAssistant = false

    @Option(name: .customLong("home-assistant-prefix"), help: "Home Assistant's discovery prefix (env HOME_ASSISTANT_PREFIX, default homeassistant).")
    var homeAssistantPrefix: String?

    @Option(
        name: .customLong("journal-cache-dir"),
        help: "The journal's image cache (its --cache-dir), served at /journal/photos/FILE (env JOURNAL_CACHE_DIR, default .data/journal/photos).")
    var journalCacheDirectory: String?

    @Option(
        name: .customLong("tile-url"),
        help: "Map tiles, a URL with {z}, {x} and {y} (env TILE_URL, default https://tile.openstreetmap.org/{z}/{x}/{y}.png).")
    var tileURL: String?

    @Option(
        name: .customLong("leaflet-dir"),
        help: "Leaflet's files, served at /vendor/leaflet/ (env LEAFLET_DIR, default /usr/share/javascript/leaflet: Debian's libjs-leaflet).")
    var leafletDirectory: String?

    @Option(
        name: .customLong("auth-token"),
        help: "Access token of the API and the event stream, 16 characters or more (env AUTH_TOKEN; prefer the environment or a file).")
    var authToken: String?

    @Option(
        name: .customLong("auth-token-file"),
        help: "A file holding the access token, its content trimmed (env AUTH_TOKEN_FILE); instead of --auth-token.")
    var authTokenFile: String?

    func run() async throws {
        var values = CommandLineValues()
        values.set("http.port", httpPort)
        values.set("http.host", httpHost)
        values.set("path.limit", pathLimit)
        values.set("max.devices", maxDevices)
        values.set("max.event.rate", maxEventRate)
        values.set("request.timeout", requestTimeout)
        values.set("journal.cache.dir", journalCacheDirectory)
        values.set("tile.url", tileURL)
        values.set("leaflet.dir", leafletDirectory)
        if homeAssistant { values.set("home.assistant", ConfigContent.bool(true)) }
        values.set("home.assistant.prefix", homeAssistantPrefix)
        values.set("auth.token", authToken, secret: true)
        values.set("auth.token.file", authTokenFile)
        let runner = try await ServiceRunner.prepare(service: "dashboard", options: runtime, commandLine: values.values)
        try await runner.run { config, logger, bus in
            do {
                return try buildDashboard(config: config, logger: logger, bus: bus)
            } catch let error as DashboardServiceError {
                throw ValidationError(error.description)
            }
        }
    }
}
