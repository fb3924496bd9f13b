import ActivityStore
import JournalKit

/// The journal's schema version history, shared by both stores: each version's statements, applied in order, each
/// version in its own transaction with its number recorded in `journal_schema_version` (the activity store's
/// `schema_version` is never touched, so both may live in one database).
enum JournalSchema {
    /// The statements of each version (index 0 is version 1). Plain SQL both SQLite and PostgreSQL accept.
    static let versions: [[String]] = [
        [
            """
            CREATE TABLE journal_walks (
                id TEXT PRIMARY KEY,
                device TEXT NOT NULL,
                name TEXT,
                started DOUBLE PRECISION NOT NULL,
                stopped DOUBLE PRECISION,
                distance DOUBLE PRECISION NOT NULL,
                route_points BIGINT NOT NULL,
                points BIGINT NOT NULL,
                photos BIGINT NOT NULL
            )
            """,
            "CREATE INDEX journal_walks_device_started ON journal_walks (device, started)",
            // At most one active walk per device, whoever inserts it.
            "CREATE UNIQUE INDEX journal_walks_active ON journal_walks (device) WHERE stopped IS NULL",
            """
            CREATE TABLE journal_route (
                walk TEXT NOT NULL REFERENCES journal_walks (id) ON DELETE CASCADE,
                seq BIGINT NOT NULL,
                recorded DOUBLE PRECISION NOT NULL,
                latitude DOUBLE PRECISION NOT NULL,
                longitude DOUBLE PRECISION NOT NULL,
                elevation DOUBLE PRECISION,
                source TEXT NOT NULL,
                distance DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (walk, seq)
            )
            """,
            """
            CREATE TABLE journal_photo_points (
                walk TEXT NOT NULL REFERENCES journal_walks (id) ON DELETE CASCADE,
                point_index BIGINT NOT NULL,
                distance DOUBLE PRECISION NOT NULL,
                latitude DOUBLE PRECISION NOT NULL,
                longitude DOUBLE PRECISION NOT NULL,
                reached DOUBLE PRECISION NOT NULL,
                status TEXT NOT NULL,
                attempts BIGINT NOT NULL,
                next_attempt DOUBLE PRECISION,
                last_error TEXT,
                cached_file TEXT,
                photo_id TEXT,
                photo_source TEXT,
                title TEXT,
                author TEXT,
                license TEXT,
                license_url TEXT,
                page_url TEXT,
                image_url TEXT,
                photo_lat DOUBLE PRECISION,
                photo_lon DOUBLE PRECISION,
                taken DOUBLE PRECISION,
                width BIGINT,
                height BIGINT,
                PRIMARY KEY (walk, point_index)
            )
            """,
            "CREATE INDEX journal_photo_points_due ON journal_photo_points (next_attempt, walk, point_index) WHERE status = 'pending'",
        ]
    ]

    /// The schema, its own version table (the journal may share a database with the activity history) and its
    /// migration lock ("SCJN" in ASCII; the activity store's is "SCAC").
    static let schema = VersionedSchema(versionTable: "journal_schema_version", versions: versions, lockKey: 0x5343_4A4E)

    /// The columns a ``Walk`` is read from, in the order of its initialiser's arguments.
    static let walkColumns = "id, device, name, started, stopped, distance, route_points, points, photos"
    /// The columns a ``RoutePoint`` is read from.
    static let routeColumns = "recorded, latitude, longitude, elevation, source, distance"
    /// The columns a ``WalkPhotoPoint`` is read from (and written to).
    static let photoPointColumns = """
        walk, point_index, distance, latitude, longitude, reached, status, attempts, next_attempt, last_error, cached_file, \
        photo_id, photo_source, title, author, license, license_url, page_url, image_url, photo_lat, photo_lon, taken, width, height
        """

    /// A route point of stored values.
    static func routePoint(
        recorded: Double, latitude: Double, longitude: Double, elevation: Double?, source: String, distance: Double
    ) throws(JournalStoreCorruption) -> RoutePoint {
        guard let kind = RouteSource(rawValue: source) else {
            throw JournalStoreCorruption(description: "unknown route point source '\(source)'")
        }
        return RoutePoint(
            time: recorded, coordinate: GeoCoordinate(latitude: latitude, longitude: longitude), elevation: elevation,
            source: kind, distance: distance)
    }

    /// The rows of a batch of photo points worth inserting: the first of each index (a later one is ignored as the
    /// database ignores an index already stored).
    static func distinct(_ points: [PhotoPoint]) -> [PhotoPoint] {
        var seen = Set<Int>()
        return points.filter { seen.insert($0.index).inserted }
    }
}

/// A stored value the store cannot turn back into a journal value (a database edited by hand, or by a newer
/// version).
struct JournalStoreCorruption: Error, Sendable, CustomStringConvertible {
    let description: String
}

/// One row of `journal_photo_points`, column by column: both stores read into it and write from it.
struct PhotoPointRow {
    var walk: String
    var index: Int
    var distance: Double
    var latitude: Double
    var longitude: Double
    var reached: Double
    var status: String
    var attempts: Int
    var nextAttempt: Double?
    var lastError: String?
    var cachedFile: String?
    var photoID: String?
    var photoSource: String?
    var title: String?
    var author: String?
    var license: String?
    var licenseURL: String?
    var pageURL: String?
    var imageURL: String?
    var photoLatitude: Double?
    var photoLongitude: Double?
    var taken: Double?
    var width: Int?
    var height: Int?

    /// The journal value; the photo is present when its id is.
    func value() throws(JournalStoreCorruption) -> WalkPhotoPoint {
        guard let kind = PhotoStatus(rawValue: status) else {
            throw JournalStoreCorruption(description: "unknown photo point status '\(status)' (walk \(walk), point \(index))")
        }
        var photo: PhotoCandidate?
        if let photoID {
            guard let photoSource, let source = PhotoSourceKind(rawValue: photoSource), let title, let license, let pageURL,
                let imageURL
            else {
                throw JournalStoreCorruption(description: "incomplete photo \(photoID) (walk \(walk), point \(index))")
            }
            var coordinate: GeoCoordinate?
            if let photoLatitude, let photoLongitude {
                coordinate = GeoCoordinate(latitude: photoLatitude, longitude: photoLongitude)
            }
            photo = PhotoCandidate(
                id: photoID, source: source, title: title, author: author, license: license, licenseURL: licenseURL,
                pageURL: pageURL, imageURL: imageURL, coordinate: coordinate, taken: taken, width: width, height: height)
        }
        return WalkPhotoPoint(
            walk: walk,
            point: PhotoPoint(
                index: index, distance: distance, coordinate: GeoCoordinate(latitude: latitude, longitude: longitude), time: reached),
            status: kind, photo: photo, cachedFile: cachedFile, attempts: attempts, nextAttempt: nextAttempt, lastError: lastError)
    }
}

extension PhotoPointRow {
    /// The row of a journal value.
    init(_ point: WalkPhotoPoint) {
        let photo = point.photo
        self.init(
            walk: point.walk, index: point.point.index, distance: point.point.distance,
            latitude: point.point.coordinate.latitude, longitude: point.point.coordinate.longitude, reached: point.point.time,
            status: point.status.rawValue, attempts: point.attempts, nextAttempt: point.nextAttempt, lastError: point.lastError,
            cachedFile: point.cachedFile, photoID: photo?.id, photoSource: photo?.source.rawValue, title: photo?.title,
            author: photo?.author, license: photo?.license, licenseURL: photo?.licenseURL, pageURL: photo?.pageURL,
            imageURL: photo?.imageURL, photoLatitude: photo?.coordinate?.latitude, photoLongitude: photo?.coordinate?.longitude,
            taken: photo?.taken, width: photo?.width, height: photo?.height)
    }
}
