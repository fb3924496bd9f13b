import Foundation
public import StepCompassContract

/// The Journal panel: the walk that is on (with whether it is recorded), and its photo points newest first, each a
/// photo with its attribution or a placeholder.
public struct JournalView: Sendable, Hashable, Codable {
    /// Whether the device has a `journal` message at all (the panel says so when not).
    public var reported: Bool
    /// Whether a walk is on (Stop is offered; Start is not).
    public var walkOn: Bool
    public var recording: Bool
    /// Why a walk that is on is not recorded, as the journal says it.
    public var reason: String?
    /// `Recording`, `Not recording: …`, `No walk on`, or that the journal has not reported.
    public var statusText: String
    /// The walk that is on.
    public var walk: WalkView?
    /// The walk's photo points the dashboard has seen (`journal/photo`), newest (furthest along) first.
    public var points: [PhotoPointView]

    /// The panel before the device's first `journal` message.
    public static let notReported = JournalView(
        reported: false, walkOn: false, recording: false, reason: nil,
        statusText: "The journal has not reported for this device: no walk recorded yet, or stepcompass-journal is not running.",
        walk: nil, points: [])

    public init(
        reported: Bool, walkOn: Bool, recording: Bool, reason: String?, statusText: String, walk: WalkView?,
        points: [PhotoPointView]
    ) {
        self.reported = reported
        self.walkOn = walkOn
        self.recording = recording
        self.reason = reason
        self.statusText = statusText
        self.walk = walk
        self.points = points
    }

    /// The panel for a `journal` message and the photo points seen of its walk.
    public init(report: JournalMessage, device: String, points: [JournalPhotoPoint]) {
        reported = true
        walkOn = report.walk != nil
        recording = report.walk != nil && report.recording
        reason = report.walk == nil ? nil : report.reason
        if report.walk == nil {
            statusText = "No walk on"
        } else if report.recording {
            statusText = "Recording"
        } else {
            statusText = "Not recording: \(report.reason ?? "paused")"
        }
        walk = report.walk.map { WalkView(report: $0, device: device) }
        let id = report.walk?.id
        self.points = points.filter { $0.walk == id }.sorted { $0.point > $1.point }.map(PhotoPointView.init)
    }
}

/// A walk as the panel and the list of past walks show it: the journal's fields, and the words.
public struct WalkView: Sendable, Hashable, Codable {
    public var id: String
    public var name: String?
    public var started: String?
    public var stopped: String?
    /// Metres along the route.
    public var distance: Double
    public var routePoints: Int
    public var points: Int
    public var photos: Int
    /// Whether it is still on (not stopped).
    public var active: Bool
    /// Its name, else `Walk of 22 Nov 2026`.
    public var title: String
    /// `1.24 km`, `350 m`.
    public var distanceText: String
    /// `22 Nov 2026, 10:15 UTC`: when it started.
    public var dateText: String?
    /// `5 photo points, 3 photos`.
    public var countsText: String
    /// The dashboard's GPX download of it.
    public var gpxUrl: String

    public init(report: JournalWalk, device: String) {
        id = report.id
        name = report.name
        started = report.started
        stopped = report.stopped
        distance = report.distance.flatMap { $0.isFinite ? max(0, $0) : nil } ?? 0
        routePoints = max(0, report.routePoints ?? 0)
        points = max(0, report.points ?? 0)
        photos = max(0, report.photos ?? 0)
        active = report.stopped == nil
        let startDate = report.started.flatMap(Timestamp.parse)
        let trimmedName = report.name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        title = trimmedName.isEmpty ? (startDate.map { "Walk of \(JournalText.day($0))" } ?? "Walk") : trimmedName
        distanceText = JournalText.distance(distance)
        dateText = startDate.map(JournalText.dateTime)
        countsText = "\(JournalText.count(points, "photo point", "photo points")), \(JournalText.count(photos, "photo", "photos"))"
        gpxUrl = "/api/devices/\(JournalText.pathComponent(device))/walks/\(JournalText.pathComponent(report.id)).gpx"
    }
}

/// A photo point as the panel shows it: the photo and its attribution, or a placeholder.
public struct PhotoPointView: Sendable, Hashable, Codable {
    public var walk: String
    public var point: Int
    public var timestamp: String?
    public var distance: Double?
    public var latitude: Double?
    public var longitude: Double?
    /// `found`, `none` or `pending`.
    public var status: String
    /// The photo, when found (with a usable image).
    public var photo: PhotoView?
    public var retryAt: String?
    public var error: String?
    /// `At 300 m`, `At 1.20 km`: how far along the walk.
    public var distanceText: String
    /// `No photo near here` (`none`) or `No photo yet` (`pending`); nil with a photo.
    public var placeholderText: String?
    /// For a pending point: when the journal tries again and what went wrong.
    public var noteText: String?

    public init(report: JournalPhotoPoint) {
        walk = report.walk
        point = report.point
        timestamp = report.timestamp
        distance = report.distance.flatMap { $0.isFinite ? $0 : nil }
        latitude = report.latitude.flatMap { $0.isFinite ? $0 : nil }
        longitude = report.longitude.flatMap { $0.isFinite ? $0 : nil }
        status = report.status
        retryAt = report.retryAt
        error = report.error
        distanceText = distance.map { "At \(JournalText.distance($0))" } ?? "Photo point \(report.point + 1)"
        photo = report.status == "found" ? report.photo.flatMap(PhotoView.init) : nil
        if photo != nil {
            placeholderText = nil
            noteText = nil
        } else if report.status == "none" {
            placeholderText = "No photo near here"
            noteText = nil
        } else {
            placeholderText = "No photo yet"
            var note: [String] = []
            if let retry = report.retryAt.flatMap(Timestamp.parse) { note.append("next try at \(JournalText.time(retry))") }
            if let error = report.error, !error.isEmpty { note.append("last error: \(error.prefix(200))") }
            noteText = note.isEmpty ? nil : JournalText.sentence(note.joined(separator: "; "))
        }
    }
}

/// A photo and the attribution its licence asks for: the title linked to its page, the author, the licence linked to
/// its text. Links are http(s) only; the image is the dashboard's cached copy.
public struct PhotoView: Sendable, Hashable, Codable {
    public var id: String?
    public var source: String?
    public var title: String
    public var author: String?
    public var license: String
    public var licenseUrl: String?
    public var pageUrl: String?
    public var imageUrl: String
    public var width: Int?
    public var height: Int?
    public var latitude: Double?
    public var longitude: Double?
    public var taken: String?
    /// `by Jane Doe`, nil without an author.
    public var authorText: String?
    /// `Photo: Marienplatz in winter`: the image's text alternative.
    public var altText: String

    /// Nil without an image the page may show (not a path on the dashboard nor an http(s) URL).
    init?(report: JournalPhoto) {
        guard let image = report.imageUrl, JournalText.isImageURL(image) else { return nil }
        imageUrl = image
        id = report.id
        source = report.source
        let trimmed = report.title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        title = trimmed.isEmpty ? "Untitled photo" : trimmed
        let author = report.author?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        self.author = author.isEmpty ? nil : author
        authorText = author.isEmpty ? nil : "by \(author)"
        let license = report.license?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        self.license = license.isEmpty ? "Licence unknown" : license
        licenseUrl = report.licenseUrl.flatMap(JournalText.webLink)
        pageUrl = report.pageUrl.flatMap(JournalText.webLink)
        width = report.width
        height = report.height
        latitude = report.latitude
        longitude = report.longitude
        taken = report.taken
        altText = "Photo: \(title)"
    }
}

/// `GET /api/devices/{id}/walks`: the device's walks, newest first.
public struct WalkListView: Sendable, Hashable, Codable {
    public var device: String
    public var walks: [WalkView]

    public init(device: String, walks: [JournalWalk]) {
        self.device = device
        self.walks = walks.map { WalkView(report: $0, device: device) }
    }
}

/// `GET /api/devices/{id}/walks/{walk}`: the walk, its route, and its photo points newest first.
public struct WalkDetailView: Sendable, Hashable, Codable {
    public var device: String
    public var walk: WalkView
    public var route: [JournalRoutePoint]
    public var points: [PhotoPointView]

    public init(device: String, walk: JournalWalk, route: [JournalRoutePoint], points: [JournalPhotoPoint]) {
        self.device = device
        self.walk = WalkView(report: walk, device: device)
        self.route = route.filter { $0.latitude.isFinite && $0.longitude.isFinite }
        self.points = points.sorted { $0.point > $1.point }.map(PhotoPointView.init)
    }
}

extension WalksReply {
    /// Reads a reply of `stepcompass/journal/walks`.
    /// - Throws: ``DashboardInputError`` saying what is wrong with it.
    public static func decode(_ payload: [UInt8]) throws(DashboardInputError) -> WalksReply {
        try ReportDecoder(payload: payload).decode(WalksReply.self, what: "journal walks reply")
    }
}
