import Foundation
public import MarkerKit
public import StepCompassContract

/// The markers as the page shows them: the service's status in words, a retry when the source failed,
/// and every marker placed on a plain map (no tiles: the page works offline).
public struct MarkersView: Sendable, Hashable, Codable {
    /// `loading`, `ready`, `failed`, or `unknown` before the marker service has said anything.
    public var state: String
    /// `Markers: 44 ready`, `Markers: loading…`, `Markers: the source failed…`.
    public var statusText: String
    public var count: Int?
    public var rejected: Int?
    public var source: String?
    public var fromCache: Bool
    /// The failure, in words, when the last fetch failed (the last good markers stay in service).
    public var errorText: String?
    /// Whether to offer the retry button (`cmd/refresh`).
    public var retryAvailable: Bool
    public var markers: [Pin]

    /// A marker and where it goes on the map.
    public struct Pin: Sendable, Hashable, Codable {
        public var id: String
        public var name: String
        public var latitude: Double
        public var longitude: Double
        /// Across the map, 0 (west edge) to 1 (east edge).
        public var u: Double
        /// Down the map, 0 (north edge) to 1 (south edge).
        public var v: Double
    }

    /// Builds the view from the last status and collection.
    public init(status: MarkersStatusMessage?, markers: [Marker]) {
        state = status?.state ?? "unknown"
        count = status?.count
        rejected = status?.rejected
        source = status?.source
        fromCache = status?.fromCache ?? false
        errorText = status?.error.map { "\($0.message) (\($0.code))" }
        retryAvailable = status?.state == "failed" || status?.error != nil
        statusText = Self.statusText(status)
        self.markers = Self.place(markers)
    }

    private static func statusText(_ status: MarkersStatusMessage?) -> String {
        guard let status else { return "Markers: waiting for the marker service…" }
        let count = status.count ?? 0
        let noun = count == 1 ? "marker" : "markers"
        var text: String
        switch status.state {
        case "ready": text = "Markers: \(DisplayText.grouped(count)) \(noun) ready"
        case "loading": text = "Markers: loading…"
        case "failed": text = "Markers: the source failed"
        default: text = "Markers: \(status.state)"
        }
        if let rejected = status.rejected, rejected > 0 { text += ", \(DisplayText.grouped(rejected)) rejected" }
        if status.fromCache == true { text += " (from the cache)" }
        if status.error != nil && status.state != "failed" { text += "; the last refresh failed" }
        return text
    }

    /// An equirectangular projection of the markers' bounding box, longitude scaled by the cosine of the
    /// middle latitude so that shapes keep their proportions, with a 5 % margin.
    private static func place(_ markers: [Marker]) -> [Pin] {
        guard let first = markers.first else { return [] }
        var south = first.latitude
        var north = first.latitude
        var west = first.longitude
        var east = first.longitude
        for marker in markers {
            south = min(south, marker.latitude)
            north = max(north, marker.latitude)
            west = min(west, marker.longitude)
            east = max(east, marker.longitude)
        }
        let middle = (south + north) / 2 * .pi / 180
        let xScale = max(0.01, cos(middle))
        let width = max((east - west) * xScale, 1e-9)
        let height = max(north - south, 1e-9)
        let side = max(width, height) * 1.1
        let left = (west * xScale + east * xScale) / 2 - side / 2
        let top = (north + south) / 2 + side / 2
        return markers.map { marker in
            Pin(
                id: marker.id, name: marker.name, latitude: marker.latitude, longitude: marker.longitude,
                u: (marker.longitude * xScale - left) / side,
                v: (top - marker.latitude) / side)
        }
    }
}
