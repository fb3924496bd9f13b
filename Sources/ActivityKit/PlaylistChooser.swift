/// A playlist suggestion and why it was made.
public struct Suggestion: Sendable, Hashable {
    public var playlist: Playlist
    public var reason: String

    public init(playlist: Playlist, reason: String) {
        self.playlist = playlist
        self.reason = reason
    }
}

/// Picks a device's playlist, on purpose simply:
///
/// - While the person walks (cadence at or above ``PlaylistCatalogue/Thresholds/walkingCadence``) the target tempo is
///   the cadence × ``PlaylistCatalogue/Thresholds/beatsPerStep``, and the walking playlist whose range holds it is
///   suggested. The current walking playlist is kept while the target stays within its range widened by
///   ``PlaylistCatalogue/Thresholds/tempoHysteresis`` on each side, so a cadence wavering at a boundary does not make
///   the suggestion flap.
/// - Otherwise the daily mean of the last seven days picks Relaxing, Focused or Energizing.
public struct PlaylistChooser: Sendable, Hashable {
    /// The walking playlist suggested last, if the last suggestion was one.
    public private(set) var currentWalking: String?

    public init() {}

    /// The suggestion for a week and a cadence.
    public mutating func suggest(week: WeekSummary, cadence: Double, catalogue: PlaylistCatalogue) -> Suggestion? {
        let thresholds = catalogue.thresholds
        if cadence >= thresholds.walkingCadence {
            let target = cadence * thresholds.beatsPerStep
            let walking = catalogue.playlists.filter { $0.use == .walking }
            if let current = walking.first(where: { $0.id == currentWalking }) {
                let range = current.tempoRange
                if target >= range.lowerBound - thresholds.tempoHysteresis, target <= range.upperBound + thresholds.tempoHysteresis {
                    return Suggestion(playlist: current, reason: Self.walkingReason(cadence: cadence, playlist: current))
                }
            }
            if let picked = Self.nearest(walking, to: target) {
                currentWalking = picked.id
                return Suggestion(playlist: picked, reason: Self.walkingReason(cadence: cadence, playlist: picked))
            }
        }
        currentWalking = nil
        let use = catalogue.use(forDailyMean: week.dailyMean)
        guard let playlist = catalogue.first(use) else { return nil }
        let reason =
            "Your last 7 days average \(Self.grouped(Int64(week.dailyMean.rounded(.down)))) steps a day (\(week.band.rawValue)): \(playlist.name) music fits."
        return Suggestion(playlist: playlist, reason: reason)
    }

    /// The playlist whose range holds `target`, else the one whose range is closest to it (ties: catalogue order).
    static func nearest(_ playlists: [Playlist], to target: Double) -> Playlist? {
        func distance(_ playlist: Playlist) -> Double {
            let range = playlist.tempoRange
            if range.contains(target) { return 0 }
            return target < range.lowerBound ? range.lowerBound - target : target - range.upperBound
        }
        return playlists.min { distance($0) < distance($1) }
    }

    static func walkingReason(cadence: Double, playlist: Playlist) -> String {
        let range = playlist.tempoRange
        return
            "You are walking at \(Int(cadence.rounded())) steps a minute: \(playlist.name) at \(Int(range.lowerBound))-\(Int(range.upperBound)) BPM keeps pace with your steps."
    }

    /// `6234` as `6,234`.
    public static func grouped(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return value < 0 ? "-" + out : out
    }
}
