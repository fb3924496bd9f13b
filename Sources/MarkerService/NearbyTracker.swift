import MarkerKit

/// Decides when a device's `nearby` list is worth publishing: on its first location, when it
/// has moved more than a threshold since the last list, or when the markers changed since.
///
/// Publishing on every fix would flood QoS 0 subscribers with identical lists (a walker moves
/// about 1.4 m/s, fixes come every second); a few tens of metres is where the nearest list can
/// plausibly change. A plain value, kept inside ``MarkerStore``.
struct NearbyTracker: Sendable {
    struct Device: Sendable {
        /// The last location received.
        var latitude: Double
        var longitude: Double
        /// Where the last published list was computed, and for which markers.
        var publishedLatitude: Double?
        var publishedLongitude: Double?
        var publishedGeneration: Int?
    }

    /// Metres a device must move before a new list.
    var minimumMove: Double
    private(set) var devices: [String: Device] = [:]

    init(minimumMove: Double) {
        self.minimumMove = minimumMove
    }

    /// Records a location; true when a list should be published for it with markers `generation`.
    mutating func update(device: String, latitude: Double, longitude: Double, generation: Int?) -> Bool {
        var entry = devices[device] ?? Device(latitude: latitude, longitude: longitude)
        entry.latitude = latitude
        entry.longitude = longitude
        defer { devices[device] = entry }
        guard let generation else { return false }
        let due: Bool
        if let lat = entry.publishedLatitude, let lon = entry.publishedLongitude,
            entry.publishedGeneration == generation
        {
            let metres =
                Haversine.distanceMiles(latitude1: lat, longitude1: lon, latitude2: latitude, longitude2: longitude)
                * 1609.344
            due = metres > minimumMove
        } else {
            due = true
        }
        if due {
            entry.publishedLatitude = latitude
            entry.publishedLongitude = longitude
            entry.publishedGeneration = generation
        }
        return due
    }

    /// The devices whose list predates markers `generation`, with their last locations, marked as
    /// published for it.
    mutating func stale(for generation: Int) -> [(device: String, latitude: Double, longitude: Double)] {
        var result: [(device: String, latitude: Double, longitude: Double)] = []
        for (id, var entry) in devices where entry.publishedGeneration != generation {
            entry.publishedLatitude = entry.latitude
            entry.publishedLongitude = entry.longitude
            entry.publishedGeneration = generation
            devices[id] = entry
            result.append((id, entry.latitude, entry.longitude))
        }
        return result.sorted { $0.device < $1.device }
    }
}
