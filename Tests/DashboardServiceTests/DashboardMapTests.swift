import DashboardKit
import DashboardService
import Foundation
import InMemoryBus
import NIOHTTP1
import ServiceRuntime
import Testing

/// A Leaflet folder as Debian lays it out (`leaflet.js`, `leaflet.min.js`, `leaflet.css`, `images/`, optionally
/// Leaflet.markercluster's files), with small stand-in contents, and a secret file next to it.
struct LeafletFolder {
    let root: URL
    var directory: URL { root.appendingPathComponent("leaflet") }

    init(cluster: Bool = true, minified: Bool = true) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-leaflet-\(UUID().uuidString)")
        let images = root.appendingPathComponent("leaflet/images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        var files = [
            "leaflet.js": "window.L = {version: 'full'};", "leaflet.css": ".leaflet-container { overflow: hidden; }",
            "leaflet.css.map": "{}", "images/marker-icon.png": "\u{89}PNG icon", "images/layers.svg": "<svg/>",
        ]
        if minified { files["leaflet.min.js"] = "window.L={version:'min'};" }
        if cluster {
            files["leaflet.markercluster.js"] = "L.markerClusterGroup = function () {};"
            files["MarkerCluster.css"] = ".marker-cluster {}"
            files["MarkerCluster.Default.css"] = ".marker-cluster-small {}"
        }
        for (name, text) in files {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        try Data("secret".utf8).write(to: root.appendingPathComponent("secret.js"))
        try Data("secret".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("folder.js"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("other"), withIntermediateDirectories: true)
        try Data("other".utf8).write(to: directory.appendingPathComponent("other/x.js"))
        // A file the package links to elsewhere (Debian links some of its files into /usr/share/nodejs).
        try Data("linked".utf8).write(to: root.appendingPathComponent("linked-target.js"))
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("linked.js"), withDestinationURL: root.appendingPathComponent("linked-target.js"))
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

@Suite("Dashboard: the real map's settings and Leaflet's files")
struct DashboardMapTests {
    let broker = InMemoryBroker()

    private func client(_ name: String) -> InMemoryBus {
        let bus = InMemoryBus(broker: broker, clientID: "\(name)-\(UUID().uuidString)", cleanStart: true)
        bus.connect()
        return bus
    }

    private func configuration(leaflet: String, tiles: String = MapSettings.openStreetMapTiles) -> DashboardConfiguration {
        DashboardConfiguration(httpPort: 0, requestTimeout: 0.5, map: MapSettings(leafletDirectory: leaflet, tileURL: tiles))
    }

    @Test("Leaflet's files are served from the system's folder with their types, a cache header and nosniff")
    func vendorFiles() async throws {
        let folder = try LeafletFolder()
        defer { folder.remove() }
        try await DashboardHarness.with(bus: client("dashboard"), configuration: configuration(leaflet: folder.directory.path)) { dashboard in
            let expected = [
                ("/vendor/leaflet/leaflet.js", "text/javascript; charset=utf-8", "window.L = {version: 'full'};"),
                ("/vendor/leaflet/leaflet.min.js", "text/javascript; charset=utf-8", "window.L={version:'min'};"),
                ("/vendor/leaflet/leaflet.css", "text/css; charset=utf-8", ".leaflet-container { overflow: hidden; }"),
                ("/vendor/leaflet/leaflet.css.map", "application/json", "{}"),
                ("/vendor/leaflet/MarkerCluster.Default.css", "text/css; charset=utf-8", ".marker-cluster-small {}"),
                ("/vendor/leaflet/images/marker-icon.png", "image/png", "\u{89}PNG icon"),
                ("/vendor/leaflet/images/layers.svg", "image/svg+xml", "<svg/>"),
                ("/vendor/leaflet/linked.js", "text/javascript; charset=utf-8", "linked"),
            ]
            for (path, type, body) in expected {
                let answer = try await dashboard.getWithHeaders(path)
                #expect(answer.status == 200, "\(path)")
                #expect(answer.headers.first(name: "content-type") == type, "\(path)")
                #expect(answer.headers.first(name: "cache-control") == "public, max-age=86400", "\(path)")
                #expect(answer.headers.first(name: "x-content-type-options") == "nosniff", "\(path)")
                #expect(answer.body == Array(body.utf8), "\(path)")
            }
            // Missing files, a folder with a served name, and a name in another subfolder: 404.
            for path in ["/vendor/leaflet/leaflet-src.js", "/vendor/leaflet/folder.js", "/vendor/leaflet/images/leaflet.js"] {
                let answer = try await dashboard.getJSON(path)
                #expect(answer.status == 404, "\(path)")
                #expect((answer.body["error"] as? [String: Any])?["code"] as? String == "notFound", "\(path)")
            }
        }
    }

    @Test("Names that could leave Leaflet's folder, other types and other subfolders are refused")
    func traversalRefused() async throws {
        let folder = try LeafletFolder()
        defer { folder.remove() }
        try await DashboardHarness.with(bus: client("dashboard"), configuration: configuration(leaflet: folder.directory.path)) { dashboard in
            for name in [
                "notes.txt", ".leaflet.js", "..js", "a..b.js", "leaflet.JS", "leaflet", "a%20b.js", "%2E%2E%2Fsecret.js",
                "..%2Fsecret.js", "leaflet.js%00.png", "-x.js", "_x.js", String(repeating: "a", count: 101) + ".js",
            ] {
                let answer = try await dashboard.getJSON("/vendor/leaflet/\(name)")
                #expect(answer.status == 400, "\(name)")
                #expect((answer.body["error"] as? [String: Any])?["code"] as? String == "badRequest", "\(name)")
            }
            // Only `images`: another subfolder is refused even when the file exists.
            let other = try await dashboard.getJSON("/vendor/leaflet/other/x.js")
            #expect(other.status == 400)
            // A path that leaves the folder never reaches a file (the router, the subfolder or the name check stops it).
            for path in [
                "/vendor/leaflet/../secret.js", "/vendor/leaflet/images/../../secret.js", "/vendor/leaflet/..%2F..%2Fsecret.js",
                "/vendor/leaflet/images/..%2F..%2Fsecret.js", "/vendor/leaflet/%2E%2E/secret.js", "/vendor/leaflet/x/../../secret.js",
                "/vendor/leaflet/", "/vendor/leaflet/images/", "/vendor/leaflet/%2E%2E/%2E%2E/secret.js",
            ] {
                let answer = try await dashboard.get(path)
                #expect(answer.status != 200, "\(path)")
                #expect(answer.body != "secret", "\(path)")
            }
        }
    }

    @Test("Without Leaflet's folder: every file is 404 saying so, and the page is told why there is no map")
    func leafletMissing() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-leaflet-\(UUID().uuidString)").path
        try await DashboardHarness.with(bus: client("dashboard"), configuration: configuration(leaflet: missing)) { dashboard in
            for path in ["/vendor/leaflet/leaflet.js", "/vendor/leaflet/leaflet.css", "/vendor/leaflet/images/marker-icon.png"] {
                let answer = try await dashboard.getJSON(path)
                #expect(answer.status == 404, "\(path)")
                let message = (answer.body["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(message.contains("libjs-leaflet") && message.contains(missing), "\(message)")
            }
            let map = try await dashboard.getJSON("/api/map")
            #expect(map.status == 200)
            #expect(map.body["leaflet"] == nil)
            #expect(map.body["markerCluster"] == nil)
            let why = map.body["unavailableText"] as? String ?? ""
            #expect(why.hasPrefix("No map: Leaflet (Debian's libjs-leaflet) is not installed"), "\(why)")
            #expect(why.contains(missing))
            // The tiles and their attribution are still said (the page needs neither without Leaflet).
            #expect(map.body["tileUrl"] as? String == MapSettings.openStreetMapTiles)
        }
    }

    @Test("GET /api/map: the tile URL, OpenStreetMap's attribution and Leaflet's files as the page loads them")
    func settingsReachThePage() async throws {
        let folder = try LeafletFolder()
        defer { folder.remove() }
        let tiles = "http://127.0.0.1:9/tiles/{z}/{x}/{y}.png?key=abc&style=x"
        try await DashboardHarness.with(
            bus: client("dashboard"), configuration: configuration(leaflet: folder.directory.path, tiles: tiles)
        ) { dashboard in
            let (status, type, text) = try await dashboard.get("/api/map")
            #expect(status == 200)
            #expect(type == "application/json")
            // Slashes are not escaped, so the template reaches Leaflet as written.
            #expect(text.contains(#""tileUrl":"http://127.0.0.1:9/tiles/{z}/{x}/{y}.png?key=abc&style=x""#))
            let map = try await dashboard.getJSON("/api/map")
            #expect(map.body["tileUrl"] as? String == tiles)
            let attribution = map.body["attribution"] as? String ?? ""
            #expect(attribution.hasPrefix("© "))
            #expect(attribution.contains(#"<a href="https://www.openstreetmap.org/copyright""#))
            #expect(attribution.contains(">OpenStreetMap contributors</a>"))
            let leaflet = try #require(map.body["leaflet"] as? [String: Any])
            #expect(leaflet["script"] as? String == "/vendor/leaflet/leaflet.min.js")
            #expect(leaflet["stylesheets"] as? [String] == ["/vendor/leaflet/leaflet.css"])
            let cluster = try #require(map.body["markerCluster"] as? [String: Any])
            #expect(cluster["script"] as? String == "/vendor/leaflet/leaflet.markercluster.js")
            #expect(cluster["stylesheets"] as? [String] == ["/vendor/leaflet/MarkerCluster.css", "/vendor/leaflet/MarkerCluster.Default.css"])
            #expect(map.body["unavailableText"] == nil)
            // Every file named is served.
            for path in [leaflet["script"], cluster["script"]].compactMap({ $0 as? String })
                + (leaflet["stylesheets"] as? [String] ?? []) + (cluster["stylesheets"] as? [String] ?? [])
            {
                #expect(try await dashboard.get(path).status == 200, "\(path)")
            }
            // The page loads map.js before app.js, and has the two maps' boxes and notes.
            let page = try await dashboard.get("/")
            let mapScript = try #require(page.body.range(of: #"<script src="map.js" defer></script>"#))
            let appScript = try #require(page.body.range(of: #"<script src="app.js" defer></script>"#))
            #expect(mapScript.lowerBound < appScript.lowerBound)
            for id in ["markers-leaflet", "markers-map-note", "walk-leaflet", "path-map-note"] {
                #expect(page.body.contains(#"id="\#(id)""#), "\(id)")
            }
            let script = try await dashboard.get("/map.js")
            #expect(script.status == 200)
            #expect(script.contentType == "text/javascript; charset=utf-8")
            #expect(script.body.contains("fetch('/api/map')"))
        }
    }

    @Test("Without Leaflet.markercluster or leaflet.min.js: leaflet.js, and no clustering library")
    func plainLeaflet() async throws {
        let folder = try LeafletFolder(cluster: false, minified: false)
        defer { folder.remove() }
        try await DashboardHarness.with(bus: client("dashboard"), configuration: configuration(leaflet: folder.directory.path)) { dashboard in
            let map = try await dashboard.getJSON("/api/map")
            #expect((map.body["leaflet"] as? [String: Any])?["script"] as? String == "/vendor/leaflet/leaflet.js")
            #expect(map.body["markerCluster"] == nil)
            #expect(map.body["unavailableText"] == nil)
        }
    }

    /// The dashboard's configuration as the executable reads it: command line, then environment (no file).
    private func load(_ commandLine: [String: String] = [:], environment: [String: String] = [:]) async throws -> DashboardConfiguration {
        var values = CommandLineValues()
        for (key, value) in commandLine { values.set(key, value) }
        let config = try await ConfigurationLoader.load(
            service: "dashboard-map-test-\(UUID().uuidString)", commandLine: values.values, configFile: nil, environment: environment)
        return try DashboardConfiguration(config: config)
    }

    @Test("The settings: defaults, keys, environment variables (TILE_URL, LEAFLET_DIR), the command line first")
    func settings() async throws {
        #expect(MapSettings.defaults.leafletDirectory == "/usr/share/javascript/leaflet")
        #expect(MapSettings.defaults.tileURL == "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
        #expect(DashboardConfiguration.defaults.map == MapSettings.defaults)
        #expect(try await load().map == .defaults)
        let keys = try await load(["tile.url": "https://tiles.example/{z}/{x}/{y}.png", "leaflet.dir": "/opt/leaflet"])
        #expect(keys.map == MapSettings(leafletDirectory: "/opt/leaflet", tileURL: "https://tiles.example/{z}/{x}/{y}.png"))
        let environment = ["TILE_URL": "http://localhost:8081/tile/{z}/{x}/{y}.png", "LEAFLET_DIR": "/srv/leaflet"]
        #expect(
            try await load(environment: environment).map
                == MapSettings(leafletDirectory: "/srv/leaflet", tileURL: "http://localhost:8081/tile/{z}/{x}/{y}.png"))
        let both = try await load(["tile.url": "https://a.example/{z}/{x}/{y}.png"], environment: environment)
        #expect(both.map == MapSettings(leafletDirectory: "/srv/leaflet", tileURL: "https://a.example/{z}/{x}/{y}.png"))
        await #expect(throws: DashboardServiceError.self) {
            try await load(environment: ["TILE_URL": "tiles.example/{z}/{x}/{y}"])
        }
    }

    @Test("Tile URLs that Leaflet cannot use, and an empty Leaflet folder, are refused naming the option")
    func badSettings() throws {
        for url in [
            "", "ftp://tiles.example/{z}/{x}/{y}.png", "https://tiles.example/{z}/{x}.png", "//tiles.example/{z}/{x}/{y}.png",
            "https://tiles.example/{z}/{x}/{y}.png\" onerror=\"x", "https://tiles example/{z}/{x}/{y}.png",
            "https://tiles.example/<b>/{z}/{x}/{y}.png", "https://tiles.example/{z}/{x}/{y}.png\n",
            "https://tiles.example/\(String(repeating: "a", count: 2_000))/{z}/{x}/{y}.png",
        ] {
            do {
                try DashboardConfiguration(map: MapSettings(tileURL: url)).validate()
                Issue.record("\(url.prefix(60)) accepted")
            } catch {
                #expect(error.description.hasPrefix("--tile-url "), "\(error)")
            }
        }
        for url in ["http://127.0.0.1:8089/{z}/{x}/{y}.png", "/tiles/{z}/{x}/{y}.png", "https://{s}.tile.example/{z}/{x}/{y}{r}.png?k=1"] {
            #expect(throws: Never.self, "\(url)") { try MapSettings(tileURL: url).validate() }
        }
        #expect(throws: DashboardServiceError.invalidConfiguration("--leaflet-dir must not be empty")) {
            try DashboardConfiguration(map: MapSettings(leafletDirectory: "")).validate()
        }
    }
}

@Suite("The device's GPS fix for the map")
struct LocationAccuracyViewTests {
    @Test("The accuracy reaches the view, for the map's circle, with its text; a bad one is left out")
    func accuracy() throws {
        for (json, accuracy, text) in [
            (#"{"latitude": 48.1374, "longitude": 11.5755, "horizontalAccuracy": 12.4}"#, 12.4 as Double?, "GPS position, ±12 m"),
            (#"{"latitude": 48.1374, "longitude": 11.5755, "horizontalAccuracy": 1234.6}"#, 1234.6, "GPS position, ±1,235 m"),
            (#"{"latitude": 48.1374, "longitude": 11.5755}"#, nil, "GPS position"),
            (#"{"latitude": 48.1374, "longitude": 11.5755, "horizontalAccuracy": -1}"#, nil, "GPS position"),
        ] {
            var model = DashboardModel()
            model.apply(try #require(try DashboardInput.decode(.location, device: "walker-1", payload: Array(json.utf8))))
            let location = try #require(model.device("walker-1")?.view.location)
            #expect(location.horizontalAccuracy == accuracy, "\(json)")
            #expect(location.accuracyText == text, "\(json)")
        }
    }
}
