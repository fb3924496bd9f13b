import Foundation
import JournalKit
import ServiceRuntime

/// `stepcompass/{device}/location`, as far as the journal reads it.
struct LocationInput: Decodable {
    let timestamp: String?
    let latitude: Double
    let longitude: Double
    let altitude: Double?
    let horizontalAccuracy: Double?
}

/// `stepcompass/{device}/position`: x north and y east in metres from the position service's origin.
struct PositionInput: Decodable {
    let timestamp: String?
    let x: Double
    let y: Double
}

/// `stepcompass/{device}/permissions`: the journal needs `location`.
struct PermissionsInput: Decodable {
    let location: String?
}

/// `stepcompass/{device}/steps`: only whether the count went up (for `--auto`).
struct StepsInput: Decodable {
    let timestamp: String?
    let steps: Double
}

/// A `stepcompass/journal/walks` request: a device's walks (no `walk`), one walk (`format` `json`, the default), or
/// its GPX (`format` `gpx`).
struct WalksRequest: Decodable {
    let device: String
    let walk: String?
    let format: String?
    let limit: Int?
    let replyTo: String?
    let correlationId: CorrelationID?
}

/// A walk as the journal publishes it.
struct WalkPayload: Encodable, Equatable {
    let id: String
    let name: String?
    let started: String
    let stopped: String?
    let distance: Double
    let routePoints: Int
    let points: Int
    let photos: Int

    init(_ walk: Walk) {
        id = walk.id
        name = walk.name
        started = Timestamp.format(Date(timeIntervalSince1970: walk.started))
        stopped = walk.stopped.map { Timestamp.format(Date(timeIntervalSince1970: $0)) }
        distance = (walk.distance * 10).rounded() / 10
        routePoints = walk.routePoints
        points = walk.points
        photos = walk.photos
    }

    enum CodingKeys: String, CodingKey { case id, name, started, stopped, distance, routePoints, points, photos }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(started, forKey: .started)
        try container.encode(stopped, forKey: .stopped)
        try container.encode(distance, forKey: .distance)
        try container.encode(routePoints, forKey: .routePoints)
        try container.encode(points, forKey: .points)
        try container.encode(photos, forKey: .photos)
    }
}

/// `stepcompass/{device}/journal` (QoS 1, retained): the walk that is on, or null; whether the journal records it
/// and, when not, why.
struct JournalPayload: Encodable, Equatable {
    let timestamp: String
    let walk: WalkPayload?
    let recording: Bool
    let reason: String?

    enum CodingKeys: String, CodingKey { case timestamp, walk, recording, reason }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(walk, forKey: .walk)
        try container.encode(recording, forKey: .recording)
        try container.encode(reason, forKey: .reason)
    }

    func sameContent(as other: JournalPayload) -> Bool {
        walk == other.walk && recording == other.recording && reason == other.reason
    }
}

/// A photo with its attribution, as published.
struct PhotoPayload: Encodable, Equatable {
    let id: String
    let source: String
    let title: String
    let author: String?
    let license: String
    let licenseUrl: String?
    let pageUrl: String
    /// The dashboard's URL of the cached image.
    let imageUrl: String
    let width: Int?
    let height: Int?
    let latitude: Double?
    let longitude: Double?
    let taken: String?

    init(_ photo: PhotoCandidate, imageURL: String) {
        id = photo.id
        source = photo.source.rawValue
        title = photo.title
        author = photo.author
        license = photo.license
        licenseUrl = photo.licenseURL
        pageUrl = photo.pageURL
        imageUrl = imageURL
        width = photo.width
        height = photo.height
        latitude = photo.coordinate?.latitude
        longitude = photo.coordinate?.longitude
        taken = photo.taken.map { Timestamp.format(Date(timeIntervalSince1970: $0)) }
    }
}

/// `stepcompass/{device}/journal/photo` (QoS 1), and a point of a walk reply: a photo point with its photo
/// (`found`), none near it (`none`), or not yet (`pending`, with the next try and the last error).
struct PhotoPointPayload: Encodable, Equatable {
    let timestamp: String
    let walk: String
    let point: Int
    let distance: Double
    let latitude: Double
    let longitude: Double
    let status: String
    let photo: PhotoPayload?
    let retryAt: String?
    let error: String?

    init(_ stored: WalkPhotoPoint, urlPrefix: String) {
        timestamp = Timestamp.format(Date(timeIntervalSince1970: stored.point.time))
        walk = stored.walk
        point = stored.point.index
        distance = stored.point.distance
        latitude = stored.point.coordinate.latitude
        longitude = stored.point.coordinate.longitude
        status = stored.status.rawValue
        if let photo = stored.photo, let file = stored.cachedFile, stored.status == .found {
            self.photo = PhotoPayload(photo, imageURL: urlPrefix + file)
        } else {
            self.photo = nil
        }
        retryAt = stored.status == .pending ? stored.nextAttempt.map { Timestamp.format(Date(timeIntervalSince1970: $0)) } : nil
        error = stored.status == .pending ? stored.lastError : nil
    }

    enum CodingKeys: String, CodingKey { case timestamp, walk, point, distance, latitude, longitude, status, photo, retryAt, error }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(walk, forKey: .walk)
        try container.encode(point, forKey: .point)
        try container.encode(distance, forKey: .distance)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encode(status, forKey: .status)
        try container.encode(photo, forKey: .photo)
        try container.encodeIfPresent(retryAt, forKey: .retryAt)
        try container.encodeIfPresent(error, forKey: .error)
    }
}

/// A route point of a walk reply.
struct RoutePointPayload: Encodable {
    let time: String
    let latitude: Double
    let longitude: Double
    let elevation: Double?
    let source: String
    let distance: Double

    init(_ point: RoutePoint) {
        time = Timestamp.format(Date(timeIntervalSince1970: point.time))
        latitude = point.coordinate.latitude
        longitude = point.coordinate.longitude
        elevation = point.elevation
        source = point.source.rawValue
        distance = (point.distance * 10).rounded() / 10
    }
}

/// The replies of `stepcompass/journal/walks`.
struct WalksReply: Encodable {
    let device: String
    let walks: [WalkPayload]
    let correlationId: CorrelationID?
}

struct WalkReply: Encodable {
    let device: String
    let walk: WalkPayload
    let route: [RoutePointPayload]
    let points: [PhotoPointPayload]
    let correlationId: CorrelationID?
}

struct GPXReply: Encodable {
    let device: String
    let walk: String
    let gpx: String
    let correlationId: CorrelationID?
}

extension JSONEncoder {
    static let journal: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
