public import Foundation

/// What a playlist is for: one of the three moods picked by the week's daily mean, or walking (picked by tempo).
public enum PlaylistUse: String, Sendable, Hashable, CaseIterable, Codable {
    /// A daily mean below ``PlaylistCatalogue/Thresholds/focused``.
    case relaxing
    /// A daily mean from ``PlaylistCatalogue/Thresholds/focused`` up to ``PlaylistCatalogue/Thresholds/energizing``.
    case focused
    /// A daily mean of ``PlaylistCatalogue/Thresholds/energizing`` or more.
    case energizing
    /// While the person walks: the playlist whose tempo range holds the cadence.
    case walking
}

/// One playlist of the catalogue.
public struct Playlist: Sendable, Hashable, Codable {
    public var id: String
    public var name: String
    public var description: String
    /// Beats per minute, `[min, max]`.
    public var tempo: [Double]
    /// Where to play it.
    public var link: String
    /// What it is for.
    public var use: PlaylistUse

    public init(id: String, name: String, description: String, tempo: ClosedRange<Double>, link: String, use: PlaylistUse) {
        self.id = id
        self.name = name
        self.description = description
        self.tempo = [tempo.lowerBound, tempo.upperBound]
        self.link = link
        self.use = use
    }

    /// The tempo range (a malformed one is a single beat of its first value; the catalogue is validated on load).
    public var tempoRange: ClosedRange<Double> {
        let low = tempo.first ?? 0
        return low...max(low, tempo.last ?? low)
    }
}

/// The playlists and the thresholds that pick one (`Config/playlists.json`).
public struct PlaylistCatalogue: Sendable, Hashable, Codable {
    /// The numbers of the mapping.
    public struct Thresholds: Sendable, Hashable, Codable {
        /// The daily mean from which the focused playlist is suggested (default 5,000: the end of sedentary).
        public var focused: Double
        /// The daily mean from which the energizing playlist is suggested (default 10,000: active).
        public var energizing: Double
        /// The cadence (steps a minute) from which a person counts as walking (default 60).
        public var walkingCadence: Double
        /// Beats per minute per step a minute (default 1: music at the pace of the steps).
        public var beatsPerStep: Double
        /// How far, in BPM, the target tempo may leave the current walking playlist's range before another is
        /// picked (default 6), so that the suggestion does not flap at a boundary.
        public var tempoHysteresis: Double

        public init(
            focused: Double = 5_000, energizing: Double = 10_000, walkingCadence: Double = 60, beatsPerStep: Double = 1,
            tempoHysteresis: Double = 6
        ) {
            self.focused = focused
            self.energizing = energizing
            self.walkingCadence = walkingCadence
            self.beatsPerStep = beatsPerStep
            self.tempoHysteresis = tempoHysteresis
        }
    }

    public var thresholds: Thresholds
    public var playlists: [Playlist]

    /// Why a catalogue cannot be used.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Builds and validates a catalogue.
    /// - Throws: ``Invalid`` when it breaks a rule of ``validate()``.
    public init(thresholds: Thresholds = Thresholds(), playlists: [Playlist]) throws(Invalid) {
        self.thresholds = thresholds
        self.playlists = playlists
        try validate()
    }

    /// Decodes and validates a catalogue (`Config/playlists.json`).
    /// - Throws: ``Invalid`` for JSON that is not a valid catalogue.
    public static func decode(_ data: Data) throws(Invalid) -> PlaylistCatalogue {
        let catalogue: PlaylistCatalogue
        do {
            catalogue = try JSONDecoder().decode(PlaylistCatalogue.self, from: data)
        } catch {
            throw Invalid(description: "the playlist catalogue is not valid JSON of the expected shape: \(error)")
        }
        try catalogue.validate()
        return catalogue
    }

    /// Checks the rules: finite, ordered thresholds; unique, non-empty ids; tempo ranges of two finite numbers,
    /// min ≤ max; at least one playlist for each use.
    public func validate() throws(Invalid) {
        let t = thresholds
        for (name, value) in [
            ("focused", t.focused), ("energizing", t.energizing), ("walkingCadence", t.walkingCadence),
            ("beatsPerStep", t.beatsPerStep), ("tempoHysteresis", t.tempoHysteresis),
        ]
        where !value.isFinite || value < 0 {
            throw Invalid(description: "the threshold '\(name)' is \(value); expected a finite number ≥ 0")
        }
        guard t.focused < t.energizing else {
            throw Invalid(description: "the threshold 'focused' (\(t.focused)) must be below 'energizing' (\(t.energizing))")
        }
        var seen = Set<String>()
        for playlist in playlists {
            guard !playlist.id.isEmpty, seen.insert(playlist.id).inserted else {
                throw Invalid(description: "the playlist id '\(playlist.id)' is empty or not unique")
            }
            guard playlist.tempo.count == 2, playlist.tempo.allSatisfy({ $0.isFinite && $0 > 0 }),
                playlist.tempo[0] <= playlist.tempo[1]
            else {
                throw Invalid(description: "the playlist '\(playlist.id)' has the tempo \(playlist.tempo); expected [min, max] BPM")
            }
        }
        for use in PlaylistUse.allCases where !playlists.contains(where: { $0.use == use }) {
            throw Invalid(description: "the catalogue has no playlist for '\(use.rawValue)'")
        }
    }

    /// The use a daily mean picks.
    public func use(forDailyMean mean: Double) -> PlaylistUse {
        if mean >= thresholds.energizing { return .energizing }
        if mean >= thresholds.focused { return .focused }
        return .relaxing
    }

    /// The first playlist of a use.
    public func first(_ use: PlaylistUse) -> Playlist? {
        playlists.first { $0.use == use }
    }

    /// The project's default catalogue (the one in `Config/playlists.json`).
    public static let standard: PlaylistCatalogue = {
        func playlist(_ id: String, _ name: String, _ description: String, _ tempo: ClosedRange<Double>, _ use: PlaylistUse) -> Playlist {
            Playlist(id: id, name: name, description: description, tempo: tempo, link: "https://stepcompass.example/playlists/\(id)", use: use)
        }
        // The literal satisfies every rule of `validate()` (a unit test checks it).
        // swiftlint:disable:next force_try
        return try! PlaylistCatalogue(playlists: [
            playlist("relaxing", "Relaxing", "Slow, warm tracks for a quiet day: a gentle start that invites a short walk.", 60...90, .relaxing),
            playlist("focused", "Focused", "Steady mid-tempo music for a day with some movement in it.", 90...115, .focused),
            playlist("energizing", "Energizing", "Bright, driving tracks for an active week: keep it going.", 120...140, .energizing),
            playlist("stroll", "Stroll", "An easy pace for a slow walk.", 60...95, .walking),
            playlist("walk", "Walk", "Music at the pace of an everyday walk.", 95...115, .walking),
            playlist("brisk-walk", "Brisk Walk", "Music for a brisk walk.", 115...130, .walking),
            playlist("power-walk", "Power Walk", "Music for a fast walk or an easy run.", 130...180, .walking),
        ])
    }()
}
