import Foundation
import JournalKit
import ServiceRuntime

// The journal's messages and replies are the contract's (`JournalMessage`, `JournalWalk`, `JournalPhotoPoint`,
// `JournalPhoto`, `JournalRoutePoint`, `WalksRequest`, `WalksReply`); here, how the journal's records become them.

extension JournalWalk {
    /// A walk as the journal publishes it: the distance to one decimal.
    init(_ walk: Walk) {
        self.init(
            id: walk.id, name: walk.name, started: Timestamp.format(Date(timeIntervalSince1970: walk.started)),
            stopped: walk.stopped.map { Timestamp.format(Date(timeIntervalSince1970: $0)) },
            distance: (walk.distance * 10).rounded() / 10, routePoints: walk.routePoints, points: walk.points,
            photos: walk.photos)
    }
}

extension JournalMessage {
    /// Equal but for the timestamp.
    func sameContent(as other: JournalMessage) -> Bool {
        walk == other.walk && recording == other.recording && reason == other.reason
    }
}

extension JournalPhoto {
    /// A photo with its attribution, its image at `imageURL` (the dashboard's URL of the cached copy).
    init(_ photo: PhotoCandidate, imageURL: String) {
        self.init(
            id: photo.id, source: photo.source.rawValue, title: photo.title, author: photo.author, license: photo.license,
            licenseUrl: photo.licenseURL, pageUrl: photo.pageURL, imageUrl: imageURL, width: photo.width,
            height: photo.height, latitude: photo.coordinate?.latitude, longitude: photo.coordinate?.longitude,
            taken: photo.taken.map { Timestamp.format(Date(timeIntervalSince1970: $0)) })
    }
}

extension JournalPhotoPoint {
    /// A stored photo point as published: the photo only when `found` (and cached), `retryAt` and `error` only when
    /// `pending`.
    init(_ stored: WalkPhotoPoint, urlPrefix: String) {
        var photo: JournalPhoto?
        if let candidate = stored.photo, let file = stored.cachedFile, stored.status == .found {
            photo = JournalPhoto(candidate, imageURL: urlPrefix + file)
        }
        self.init(
            timestamp: Timestamp.format(Date(timeIntervalSince1970: stored.point.time)), walk: stored.walk,
            point: stored.point.index, distance: stored.point.distance, latitude: stored.point.coordinate.latitude,
            longitude: stored.point.coordinate.longitude, status: stored.status.rawValue, photo: photo,
            retryAt: stored.status == .pending ? stored.nextAttempt.map { Timestamp.format(Date(timeIntervalSince1970: $0)) } : nil,
            error: stored.status == .pending ? stored.lastError : nil)
    }
}

extension JournalRoutePoint {
    /// A route point of a walk reply: the distance to one decimal.
    init(_ point: RoutePoint) {
        self.init(
            time: Timestamp.format(Date(timeIntervalSince1970: point.time)), latitude: point.coordinate.latitude,
            longitude: point.coordinate.longitude, elevation: point.elevation, source: point.source.rawValue,
            distance: (point.distance * 10).rounded() / 10)
    }
}

extension JSONEncoder {
    static let journal: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
