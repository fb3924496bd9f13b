public import Configuration
import Foundation

/// The page's map: where Leaflet's files are on this machine and where the map tiles come from.
///
/// Leaflet is never part of the repository: the dashboard serves the system's copy (Debian's `libjs-leaflet`,
/// and `libjs-leaflet.markercluster` for clustering, both in `/usr/share/javascript/leaflet`) at `/vendor/leaflet/`.
/// Without it, or when the tiles cannot be loaded, the page draws the markers and the walk as before.
public struct MapSettings: Sendable, Hashable {
    /// The folder of Leaflet's files (`--leaflet-dir`, key `leaflet.dir`, env `LEAFLET_DIR`).
    public var leafletDirectory: String
    /// The tile URL template with `{z}`, `{x}` and `{y}` (and optionally `{s}`, `{r}`) (`--tile-url`, key
    /// `tile.url`, env `TILE_URL`): OpenStreetMap's by default, your own tile server's otherwise.
    public var tileURL: String

    /// Debian's folder of `libjs-leaflet`.
    public static let debianLeafletDirectory = "/usr/share/javascript/leaflet"
    /// OpenStreetMap's standard tiles (its tile usage policy applies: light, interactive use).
    public static let openStreetMapTiles = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    /// The longest tile URL accepted.
    static let maximumTileURLLength = 2_000

    public init(leafletDirectory: String = MapSettings.debianLeafletDirectory, tileURL: String = MapSettings.openStreetMapTiles) {
        self.leafletDirectory = leafletDirectory
        self.tileURL = tileURL
    }

    /// The defaults: Debian's Leaflet folder and OpenStreetMap's tiles.
    public static let defaults = MapSettings()

    /// Checks both values, naming the option that is wrong.
    public func validate() throws(DashboardServiceError) {
        guard !leafletDirectory.isEmpty else { throw .invalidConfiguration("--leaflet-dir must not be empty") }
        if let problem = Self.tileURLProblem(tileURL) {
            throw .invalidConfiguration("--tile-url \(problem), got '\(tileURL.prefix(80))'")
        }
    }

    /// Why a tile URL template cannot be used, nil when it can: an `http(s)://` URL (or a path on the dashboard's
    /// own host, starting with `/`) with `{z}`, `{x}` and `{y}`, no spaces, quotes or angle brackets.
    static func tileURLProblem(_ url: String) -> String? {
        guard !url.isEmpty, url.utf8.count <= maximumTileURLLength else {
            return "must be 1 to \(maximumTileURLLength) characters"
        }
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") || (url.hasPrefix("/") && !url.hasPrefix("//")) else {
            return "must start with https:// or http:// (or / for the dashboard's own host)"
        }
        guard url.contains("{z}"), url.contains("{x}"), url.contains("{y}") else {
            return "must contain {z}, {x} and {y}, e.g. \(openStreetMapTiles)"
        }
        guard
            url.unicodeScalars.allSatisfy({ scalar in
                scalar.value > 0x20 && scalar.value < 0x7F && !"\"'<>\\`".unicodeScalars.contains(scalar)
            })
        else {
            return "must be plain ASCII without spaces, quotes, backslashes or angle brackets"
        }
        return nil
    }
}

extension MapSettings {
    /// Reads `leaflet.dir` and `tile.url` (each optional, defaults in ``defaults``) and validates them.
    /// - Throws: ``DashboardServiceError/invalidConfiguration(_:)`` naming the option.
    public init(config: ConfigReader) throws(DashboardServiceError) {
        self.init(
            leafletDirectory: config.string(forKey: "leaflet.dir", default: Self.defaults.leafletDirectory),
            tileURL: config.string(forKey: "tile.url", default: Self.defaults.tileURL).trimmingCharacters(in: .whitespaces))
        try validate()
    }
}
