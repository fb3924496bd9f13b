import Hummingbird

/// The page's map settings (`GET /api/map`): the tile URL, the attribution OpenStreetMap requires, and Leaflet's
/// files as the dashboard serves them, or why there is no map.
struct MapView: Sendable, Hashable, Encodable {
    /// The files of one library, as URLs on the dashboard.
    struct Library: Sendable, Hashable, Encodable {
        var script: String
        var stylesheets: [String]
    }

    /// The tile URL template (`--tile-url`).
    var tileUrl: String
    /// The map's attribution, HTML (Leaflet's attribution control shows HTML): © OpenStreetMap contributors, linked to
    /// the copyright page, as OpenStreetMap's licence and tile usage policy require.
    var attribution: String
    /// Leaflet, nil when it is not installed.
    var leaflet: Library?
    /// Leaflet.markercluster, nil when it is not installed (the page then groups the markers itself).
    var markerCluster: Library?
    /// Why there is no map, for the page to show; nil when Leaflet is installed.
    var unavailableText: String?

    static let attribution =
        #"© <a href="https://www.openstreetmap.org/copyright" target="_blank" rel="noopener noreferrer">OpenStreetMap contributors</a>"#
    /// Where the page finds the folder's files.
    static let vendorPath = "/vendor/leaflet/"

    init(settings: MapSettings, installed: VendorFiles.Installed?) {
        tileUrl = settings.tileURL
        attribution = Self.attribution
        guard let installed else {
            leaflet = nil
            markerCluster = nil
            unavailableText =
                "No map: Leaflet (Debian's libjs-leaflet) is not installed on the dashboard's machine "
                + "(no leaflet.js and leaflet.css in \(settings.leafletDirectory)), so the markers and the walk are drawn without one."
            return
        }
        leaflet = Library(script: Self.vendorPath + installed.script, stylesheets: [Self.vendorPath + installed.stylesheet])
        markerCluster = installed.clusterScript.map { script in
            Library(script: Self.vendorPath + script, stylesheets: installed.clusterStylesheets.map { Self.vendorPath + $0 })
        }
        unavailableText = nil
    }
}

extension DashboardRoutes {
    /// `GET /api/map`, `GET /vendor/leaflet/{file}` and `GET /vendor/leaflet/images/{file}`.
    func addMapRoutes(to router: Router<BasicRequestContext>) {
        let settings = configuration.map
        let vendor = VendorFiles(directory: settings.leafletDirectory)
        // Looked up on each request: installing libjs-leaflet needs no restart.
        router.get("/api/map") { _, _ in
            JSONResponse.make(MapView(settings: settings, installed: vendor.installed()))
        }
        // One parameter name at each depth (Hummingbird's router requires it): `entry` is the file, or its folder.
        router.get("/vendor/leaflet/:entry") { _, context in
            await vendor.response(file: context.parameters.get("entry") ?? "", context: context)
        }
        router.get("/vendor/leaflet/:entry/:file") { _, context in
            await vendor.response(
                file: context.parameters.get("file") ?? "", subfolder: context.parameters.get("entry") ?? "", context: context)
        }
    }
}
