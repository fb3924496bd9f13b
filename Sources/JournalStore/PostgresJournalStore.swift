import ActivityStore
import Foundation
public import JournalKit
public import Logging
public import PostgresNIO

/// The PostgreSQL journal store (`--database-url postgres://user:password@host:port/database`), through postgres-nio;
/// it may share its database with ``PostgresActivityStore`` (its tables are apart).
///
/// Every value is bound, never interpolated into the SQL. A ``record(walk:route:photoPoints:)`` is one transaction
/// that locks the walk's row and inserts its route and its photo points with one `INSERT ... SELECT FROM UNNEST(...)`
/// each, whatever the size of the batch.
public final class PostgresJournalStore: JournalStore {
    private let client: PostgresClient
    private let running: Task<Void, Never>
    private let logger: Logger

    /// Connects to the server of a `postgres://` (or `postgresql://`) URL, read as
    /// ``PostgresActivityStore/configuration(url:)`` reads it.
    /// - Throws: ``PostgresActivityStore/InvalidURL`` for a URL that is not one.
    public convenience init(url: String, logger: Logger) throws {
        try self.init(configuration: PostgresActivityStore.configuration(url: url), logger: logger)
    }

    /// Starts a client with `configuration` (its connections open on first use).
    public init(configuration: PostgresClient.Configuration, logger: Logger) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.running = Task { await client.run() }
    }

    public func migrate() async throws {
        try await JournalSchema.schema.migrate(client, logger: logger)
    }

    /// The journal's schema version in the database (0 before ``migrate()``).
    public func schemaVersion() async throws -> Int {
        try await JournalSchema.schema.version(client, logger: logger)
    }

    public func startWalk(_ walk: Walk) async throws {
        let logger = logger
        try await transaction { connection in
            // A concurrent insert for the same device waits for the other transaction, then does nothing if that
            // one committed; the walk that won is then visible to the next statement (read committed). Should it
            // have been stopped in between, the insert is tried again.
            for _ in 0..<5 {
                let inserted = try await connection.query(
                    """
                    INSERT INTO journal_walks (\(unescaped: JournalSchema.walkColumns))
                    VALUES (\(walk.id), \(walk.device), \(walk.name), \(walk.started), \(walk.stopped), \(walk.distance),
                        \(Int64(walk.routePoints)), \(Int64(walk.points)), \(Int64(walk.photos)))
                    ON CONFLICT (device) WHERE stopped IS NULL DO NOTHING
                    RETURNING id
                    """, logger: logger)
                var stored = false
                for try await _ in inserted.decode(String.self) { stored = true }
                if stored { return }
                let active = try await connection.query(
                    "SELECT id FROM journal_walks WHERE device = \(walk.device) AND stopped IS NULL", logger: logger)
                var winner: String?
                for try await id in active.decode(String.self) { winner = id }
                if let winner { throw JournalStoreError.walkActive(device: walk.device, walk: winner) }
            }
            throw JournalStoreError.walkActive(device: walk.device, walk: "")
        }
    }

    public func stopWalk(id: String, at time: Double) async throws -> Walk? {
        let logger = logger
        return try await transaction { connection in
            try await connection.query(
                "UPDATE journal_walks SET stopped = \(time) WHERE id = \(id) AND stopped IS NULL", logger: logger)
            return try await Self.walks(
                connection.query("SELECT \(unescaped: JournalSchema.walkColumns) FROM journal_walks WHERE id = \(id)", logger: logger)
            ).first
        }
    }

    public func activeWalk(device: String) async throws -> Walk? {
        try await Self.walks(
            client.query(
                "SELECT \(unescaped: JournalSchema.walkColumns) FROM journal_walks WHERE device = \(device) AND stopped IS NULL",
                logger: logger)
        ).first
    }

    public func activeWalks() async throws -> [Walk] {
        try await Self.walks(
            client.query(
                "SELECT \(unescaped: JournalSchema.walkColumns) FROM journal_walks WHERE stopped IS NULL ORDER BY device, started",
                logger: logger))
    }

    public func walk(id: String) async throws -> Walk? {
        try await Self.walks(
            client.query(
                "SELECT \(unescaped: JournalSchema.walkColumns) FROM journal_walks WHERE id = \(id)", logger: logger)
        ).first
    }

    public func walks(device: String, limit: Int) async throws -> [Walk] {
        try await Self.walks(
            client.query(
                """
                SELECT \(unescaped: JournalSchema.walkColumns) FROM journal_walks WHERE device = \(device)
                ORDER BY started DESC, id DESC LIMIT \(Int64(max(0, limit)))
                """, logger: logger))
    }

    public func record(walk: String, route: [RoutePoint], photoPoints: [PhotoPoint]) async throws {
        let logger = logger
        try await transaction { connection in
            // The walk's row lock serialises the records and updates of one walk (sequence numbers, counts).
            let found = try await connection.query("SELECT id FROM journal_walks WHERE id = \(walk) FOR UPDATE", logger: logger)
            var exists = false
            for try await _ in found.decode(String.self) { exists = true }
            guard exists else { throw JournalStoreError.unknownWalk(walk) }
            if !route.isEmpty {
                let last = try await connection.query(
                    "SELECT COALESCE(MAX(seq), 0) FROM journal_route WHERE walk = \(walk)", logger: logger)
                var first: Int64 = 1
                for try await seq in last.decode(Int64.self) { first = seq + 1 }
                let seqs = (0..<Int64(route.count)).map { first + $0 }
                let times = route.map(\.time)
                let latitudes = route.map(\.coordinate.latitude)
                let longitudes = route.map(\.coordinate.longitude)
                // Arrays cannot carry a NULL element here: a flag says which elevations are there.
                let hasElevation = route.map { $0.elevation != nil }
                let elevations = route.map { $0.elevation ?? 0 }
                let sources = route.map(\.source.rawValue)
                let distances = route.map(\.distance)
                try await connection.query(
                    """
                    INSERT INTO journal_route (walk, seq, recorded, latitude, longitude, elevation, source, distance)
                    SELECT \(walk)::text, u.seq, u.recorded, u.latitude, u.longitude,
                        CASE WHEN u.has_elevation THEN u.elevation END, u.source, u.distance
                    FROM UNNEST(\(seqs)::bigint[], \(times)::double precision[], \(latitudes)::double precision[],
                        \(longitudes)::double precision[], \(hasElevation)::boolean[], \(elevations)::double precision[],
                        \(sources)::text[], \(distances)::double precision[])
                        AS u(seq, recorded, latitude, longitude, has_elevation, elevation, source, distance)
                    """, logger: logger)
            }
            let points = JournalSchema.distinct(photoPoints)
            if !points.isEmpty {
                let indexes = points.map { Int64($0.index) }
                let distances = points.map(\.distance)
                let latitudes = points.map(\.coordinate.latitude)
                let longitudes = points.map(\.coordinate.longitude)
                let times = points.map(\.time)
                try await connection.query(
                    """
                    INSERT INTO journal_photo_points (walk, point_index, distance, latitude, longitude, reached, status, attempts)
                    SELECT \(walk)::text, u.point_index, u.distance, u.latitude, u.longitude, u.reached, 'pending', 0
                    FROM UNNEST(\(indexes)::bigint[], \(distances)::double precision[], \(latitudes)::double precision[],
                        \(longitudes)::double precision[], \(times)::double precision[])
                        AS u(point_index, distance, latitude, longitude, reached)
                    ON CONFLICT (walk, point_index) DO NOTHING
                    """, logger: logger)
            }
            try await connection.query(
                """
                UPDATE journal_walks SET distance = COALESCE(\(route.last?.distance)::double precision, distance),
                    route_points = route_points + \(Int64(route.count)),
                    points = (SELECT COUNT(*) FROM journal_photo_points WHERE walk = \(walk))
                WHERE id = \(walk)
                """, logger: logger)
        }
    }

    public func route(walk: String) async throws -> [RoutePoint] {
        try await Self.route(
            client.query(
                "SELECT \(unescaped: JournalSchema.routeColumns) FROM journal_route WHERE walk = \(walk) ORDER BY seq", logger: logger))
    }

    public func lastRoutePoint(walk: String) async throws -> RoutePoint? {
        try await Self.route(
            client.query(
                "SELECT \(unescaped: JournalSchema.routeColumns) FROM journal_route WHERE walk = \(walk) ORDER BY seq DESC LIMIT 1",
                logger: logger)
        ).first
    }

    public func photoPoints(walk: String) async throws -> [WalkPhotoPoint] {
        try await Self.photoPoints(
            client.query(
                "SELECT \(unescaped: JournalSchema.photoPointColumns) FROM journal_photo_points WHERE walk = \(walk) ORDER BY point_index",
                logger: logger))
    }

    public func duePhotoPoints(now: Double, limit: Int) async throws -> [WalkPhotoPoint] {
        // Walks in byte order (as SQLite compares them), whatever the database's collation.
        try await Self.photoPoints(
            client.query(
                """
                SELECT \(unescaped: JournalSchema.photoPointColumns) FROM journal_photo_points
                WHERE status = 'pending' AND (next_attempt IS NULL OR next_attempt <= \(now))
                ORDER BY next_attempt NULLS FIRST, walk COLLATE "C", point_index LIMIT \(Int64(max(0, limit)))
                """, logger: logger))
    }

    public func update(_ point: WalkPhotoPoint) async throws {
        let logger = logger
        let row = PhotoPointRow(point)
        try await transaction { connection in
            let found = try await connection.query(
                "SELECT id FROM journal_walks WHERE id = \(row.walk) FOR UPDATE", logger: logger)
            var exists = false
            for try await _ in found.decode(String.self) { exists = true }
            guard exists else { throw JournalStoreError.unknownWalk(row.walk) }
            try await connection.query(
                """
                INSERT INTO journal_photo_points (\(unescaped: JournalSchema.photoPointColumns))
                VALUES (\(row.walk), \(Int64(row.index)), \(row.distance), \(row.latitude), \(row.longitude), \(row.reached),
                    \(row.status), \(Int64(row.attempts)), \(row.nextAttempt), \(row.lastError), \(row.cachedFile),
                    \(row.photoID), \(row.photoSource), \(row.title), \(row.author), \(row.license), \(row.licenseURL),
                    \(row.pageURL), \(row.imageURL), \(row.photoLatitude), \(row.photoLongitude), \(row.taken),
                    \(row.width.map(Int64.init)), \(row.height.map(Int64.init)))
                ON CONFLICT (walk, point_index) DO UPDATE SET
                    status = EXCLUDED.status, attempts = EXCLUDED.attempts, next_attempt = EXCLUDED.next_attempt,
                    last_error = EXCLUDED.last_error, cached_file = EXCLUDED.cached_file, photo_id = EXCLUDED.photo_id,
                    photo_source = EXCLUDED.photo_source, title = EXCLUDED.title, author = EXCLUDED.author,
                    license = EXCLUDED.license, license_url = EXCLUDED.license_url, page_url = EXCLUDED.page_url,
                    image_url = EXCLUDED.image_url, photo_lat = EXCLUDED.photo_lat, photo_lon = EXCLUDED.photo_lon,
                    taken = EXCLUDED.taken, width = EXCLUDED.width, height = EXCLUDED.height
                """, logger: logger)
            try await connection.query(
                """
                UPDATE journal_walks SET
                    points = (SELECT COUNT(*) FROM journal_photo_points WHERE walk = \(row.walk)),
                    photos = (SELECT COUNT(*) FROM journal_photo_points WHERE walk = \(row.walk) AND status = 'found')
                WHERE id = \(row.walk)
                """, logger: logger)
        }
    }

    public func usedPhotoIDs(walk: String) async throws -> Set<String> {
        let rows = try await client.query(
            "SELECT photo_id FROM journal_photo_points WHERE walk = \(walk) AND status = 'found' AND photo_id IS NOT NULL",
            logger: logger)
        var ids = Set<String>()
        for try await id in rows.decode(String.self) { ids.insert(id) }
        return ids
    }

    public func close() async throws {
        running.cancel()
        await running.value
    }

    // MARK: Transactions and rows

    /// Runs `body` in a transaction; a ``JournalStoreError`` it throws comes out as itself (postgres-nio wraps it).
    private func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            if let journal = error.closureError as? JournalStoreError, error.rollbackError == nil { throw journal }
            throw error
        }
    }

    private static func walks(_ rows: PostgresRowSequence) async throws -> [Walk] {
        var walks: [Walk] = []
        for try await (id, device, name, started, stopped, distance, routePoints, points, photos) in rows.decode(
            (String, String, String?, Double, Double?, Double, Int64, Int64, Int64).self)
        {
            walks.append(
                Walk(
                    id: id, device: device, name: name, started: started, stopped: stopped, distance: distance,
                    routePoints: Int(routePoints), points: Int(points), photos: Int(photos)))
        }
        return walks
    }

    private static func route(_ rows: PostgresRowSequence) async throws -> [RoutePoint] {
        var route: [RoutePoint] = []
        for try await (recorded, latitude, longitude, elevation, source, distance) in rows.decode(
            (Double, Double, Double, Double?, String, Double).self)
        {
            route.append(
                try JournalSchema.routePoint(
                    recorded: recorded, latitude: latitude, longitude: longitude, elevation: elevation, source: source,
                    distance: distance))
        }
        return route
    }

    private static func photoPoints(_ rows: PostgresRowSequence) async throws -> [WalkPhotoPoint] {
        var points: [WalkPhotoPoint] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            points.append(
                try PhotoPointRow(
                    walk: cells["walk"].decode(String.self),
                    index: Int(cells["point_index"].decode(Int64.self)),
                    distance: cells["distance"].decode(Double.self),
                    latitude: cells["latitude"].decode(Double.self),
                    longitude: cells["longitude"].decode(Double.self),
                    reached: cells["reached"].decode(Double.self),
                    status: cells["status"].decode(String.self),
                    attempts: Int(cells["attempts"].decode(Int64.self)),
                    nextAttempt: cells["next_attempt"].decode(Double?.self),
                    lastError: cells["last_error"].decode(String?.self),
                    cachedFile: cells["cached_file"].decode(String?.self),
                    photoID: cells["photo_id"].decode(String?.self),
                    photoSource: cells["photo_source"].decode(String?.self),
                    title: cells["title"].decode(String?.self),
                    author: cells["author"].decode(String?.self),
                    license: cells["license"].decode(String?.self),
                    licenseURL: cells["license_url"].decode(String?.self),
                    pageURL: cells["page_url"].decode(String?.self),
                    imageURL: cells["image_url"].decode(String?.self),
                    photoLatitude: cells["photo_lat"].decode(Double?.self),
                    photoLongitude: cells["photo_lon"].decode(Double?.self),
                    taken: cells["taken"].decode(Double?.self),
                    width: cells["width"].decode(Int64?.self).map(Int.init),
                    height: cells["height"].decode(Int64?.self).map(Int.init)
                ).value())
        }
        return points
    }
}
