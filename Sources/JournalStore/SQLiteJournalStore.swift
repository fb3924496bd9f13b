import ActivityStore
import Foundation
import GRDB
public import JournalKit

/// The embedded journal store (the default): one SQLite file in write-ahead-log mode, through GRDB; it may be the
/// activity store's file (its tables are apart).
///
/// Every write is one immediate transaction, so two stores on the same file (two processes, or two store objects)
/// take turns (with a busy timeout). WAL with `synchronous = NORMAL` keeps every committed transaction across a crash
/// of the process and never corrupts the file.
public final class SQLiteJournalStore: JournalStore {
    private let pool: DatabasePool
    /// The database file.
    public let path: String

    /// Opens (or creates) the database at `path`; its folder must exist.
    /// - Throws: GRDB's `DatabaseError` when the file cannot be opened.
    public init(path: String) throws {
        self.pool = try VersionedSchema.sqlitePool(path: path)
        self.path = path
    }

    public func migrate() async throws {
        try await JournalSchema.schema.migrate(pool)
    }

    /// The journal's schema version in the file (0 before ``migrate()``).
    public func schemaVersion() async throws -> Int {
        try await JournalSchema.schema.version(pool)
    }

    public func startWalk(_ walk: Walk) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO journal_walks (\(JournalSchema.walkColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (device) WHERE stopped IS NULL DO NOTHING
                    """,
                arguments: [
                    walk.id, walk.device, walk.name, walk.started, walk.stopped, walk.distance, walk.routePoints,
                    walk.points, walk.photos,
                ])
            guard db.changesCount == 0 else { return }
            // Writes are serialised: the walk that won is still on.
            let active = try String.fetchOne(
                db, sql: "SELECT id FROM journal_walks WHERE device = ? AND stopped IS NULL", arguments: [walk.device])
            throw JournalStoreError.walkActive(device: walk.device, walk: active ?? "")
        }
    }

    public func stopWalk(id: String, at time: Double) async throws -> Walk? {
        try await pool.write { db in
            try db.execute(sql: "UPDATE journal_walks SET stopped = ? WHERE id = ? AND stopped IS NULL", arguments: [time, id])
            return try Self.walks(db, "WHERE id = ?", [id]).first
        }
    }

    public func activeWalk(device: String) async throws -> Walk? {
        try await pool.read { db in
            try Self.walks(db, "WHERE device = ? AND stopped IS NULL", [device]).first
        }
    }

    public func activeWalks() async throws -> [Walk] {
        try await pool.read { db in
            try Self.walks(db, "WHERE stopped IS NULL ORDER BY device, started", [])
        }
    }

    public func walk(id: String) async throws -> Walk? {
        try await pool.read { db in
            try Self.walks(db, "WHERE id = ?", [id]).first
        }
    }

    public func walks(device: String, limit: Int) async throws -> [Walk] {
        try await pool.read { db in
            try Self.walks(db, "WHERE device = ? ORDER BY started DESC, id DESC LIMIT ?", [device, max(0, limit)])
        }
    }

    public func record(walk: String, route: [RoutePoint], photoPoints: [PhotoPoint]) async throws {
        try await pool.write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM journal_walks WHERE id = ?", arguments: [walk]) != nil else {
                throw JournalStoreError.unknownWalk(walk)
            }
            if !route.isEmpty {
                var seq =
                    try Int64.fetchOne(
                        db, sql: "SELECT COALESCE(MAX(seq), 0) FROM journal_route WHERE walk = ?", arguments: [walk]) ?? 0
                let insert = try db.cachedStatement(
                    sql: """
                        INSERT INTO journal_route (walk, seq, recorded, latitude, longitude, elevation, source, distance)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for point in route {
                    seq += 1
                    try insert.execute(arguments: [
                        walk, seq, point.time, point.coordinate.latitude, point.coordinate.longitude, point.elevation,
                        point.source.rawValue, point.distance,
                    ])
                }
            }
            let insertPoint = try db.cachedStatement(
                sql: """
                    INSERT INTO journal_photo_points (walk, point_index, distance, latitude, longitude, reached, status, attempts)
                    VALUES (?, ?, ?, ?, ?, ?, 'pending', 0)
                    ON CONFLICT (walk, point_index) DO NOTHING
                    """)
            for point in JournalSchema.distinct(photoPoints) {
                try insertPoint.execute(arguments: [
                    walk, point.index, point.distance, point.coordinate.latitude, point.coordinate.longitude, point.time,
                ])
            }
            try db.execute(
                sql: """
                    UPDATE journal_walks SET distance = COALESCE(?, distance), route_points = route_points + ?,
                        points = (SELECT COUNT(*) FROM journal_photo_points WHERE walk = ?)
                    WHERE id = ?
                    """,
                arguments: [route.last?.distance, route.count, walk, walk])
        }
    }

    public func route(walk: String) async throws -> [RoutePoint] {
        try await pool.read { db in
            try Self.route(db, "WHERE walk = ? ORDER BY seq", [walk])
        }
    }

    public func lastRoutePoint(walk: String) async throws -> RoutePoint? {
        try await pool.read { db in
            try Self.route(db, "WHERE walk = ? ORDER BY seq DESC LIMIT 1", [walk]).first
        }
    }

    public func photoPoints(walk: String) async throws -> [WalkPhotoPoint] {
        try await pool.read { db in
            try Self.photoPoints(db, "WHERE walk = ? ORDER BY point_index", [walk])
        }
    }

    public func duePhotoPoints(now: Double, limit: Int) async throws -> [WalkPhotoPoint] {
        try await pool.read { db in
            // SQLite sorts NULL first in ascending order (and so can walk the partial index).
            try Self.photoPoints(
                db,
                """
                WHERE status = 'pending' AND (next_attempt IS NULL OR next_attempt <= ?)
                ORDER BY next_attempt, walk, point_index LIMIT ?
                """,
                [now, max(0, limit)])
        }
    }

    public func update(_ point: WalkPhotoPoint) async throws {
        let row = PhotoPointRow(point)
        try await pool.write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM journal_walks WHERE id = ?", arguments: [row.walk]) != nil else {
                throw JournalStoreError.unknownWalk(row.walk)
            }
            let values: [(any DatabaseValueConvertible)?] = [
                row.walk, row.index, row.distance, row.latitude, row.longitude, row.reached, row.status, row.attempts,
                row.nextAttempt, row.lastError, row.cachedFile, row.photoID, row.photoSource, row.title, row.author,
                row.license, row.licenseURL, row.pageURL, row.imageURL, row.photoLatitude, row.photoLongitude, row.taken,
                row.width, row.height,
            ]
            try db.execute(
                sql: """
                    INSERT INTO journal_photo_points (\(JournalSchema.photoPointColumns))
                    VALUES (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))
                    ON CONFLICT (walk, point_index) DO UPDATE SET
                        status = excluded.status, attempts = excluded.attempts, next_attempt = excluded.next_attempt,
                        last_error = excluded.last_error, cached_file = excluded.cached_file, photo_id = excluded.photo_id,
                        photo_source = excluded.photo_source, title = excluded.title, author = excluded.author,
                        license = excluded.license, license_url = excluded.license_url, page_url = excluded.page_url,
                        image_url = excluded.image_url, photo_lat = excluded.photo_lat, photo_lon = excluded.photo_lon,
                        taken = excluded.taken, width = excluded.width, height = excluded.height
                    """,
                arguments: StatementArguments(values))
            try db.execute(
                sql: """
                    UPDATE journal_walks SET
                        points = (SELECT COUNT(*) FROM journal_photo_points WHERE walk = ?),
                        photos = (SELECT COUNT(*) FROM journal_photo_points WHERE walk = ? AND status = 'found')
                    WHERE id = ?
                    """,
                arguments: [row.walk, row.walk, row.walk])
        }
    }

    public func usedPhotoIDs(walk: String) async throws -> Set<String> {
        try await pool.read { db in
            Set(
                try String.fetchAll(
                    db, sql: "SELECT photo_id FROM journal_photo_points WHERE walk = ? AND status = 'found' AND photo_id IS NOT NULL",
                    arguments: [walk]))
        }
    }

    public func close() async throws {
        try pool.close()
    }

    // MARK: Reading rows

    private static func walks(_ db: Database, _ clause: String, _ arguments: StatementArguments) throws -> [Walk] {
        try Row.fetchAll(db, sql: "SELECT \(JournalSchema.walkColumns) FROM journal_walks \(clause)", arguments: arguments).map { row in
            Walk(
                id: row[0], device: row[1], name: row[2], started: row[3], stopped: row[4], distance: row[5],
                routePoints: row[6], points: row[7], photos: row[8])
        }
    }

    private static func route(_ db: Database, _ clause: String, _ arguments: StatementArguments) throws -> [RoutePoint] {
        try Row.fetchAll(db, sql: "SELECT \(JournalSchema.routeColumns) FROM journal_route \(clause)", arguments: arguments).map { row in
            try JournalSchema.routePoint(
                recorded: row[0], latitude: row[1], longitude: row[2], elevation: row[3], source: row[4], distance: row[5])
        }
    }

    private static func photoPoints(_ db: Database, _ clause: String, _ arguments: StatementArguments) throws -> [WalkPhotoPoint] {
        try Row.fetchAll(
            db, sql: "SELECT \(JournalSchema.photoPointColumns) FROM journal_photo_points \(clause)", arguments: arguments
        ).map { row in
            try PhotoPointRow(
                walk: row[0], index: row[1], distance: row[2], latitude: row[3], longitude: row[4], reached: row[5],
                status: row[6], attempts: row[7], nextAttempt: row[8], lastError: row[9], cachedFile: row[10],
                photoID: row[11], photoSource: row[12], title: row[13], author: row[14], license: row[15],
                licenseURL: row[16], pageURL: row[17], imageURL: row[18], photoLatitude: row[19], photoLongitude: row[20],
                taken: row[21], width: row[22], height: row[23]
            ).value()
        }
    }
}
