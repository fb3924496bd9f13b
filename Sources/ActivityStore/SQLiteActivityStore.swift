public import ActivityKit
import Foundation
import GRDB

/// The embedded store (the default): one SQLite file in write-ahead-log mode, through GRDB.
///
/// A batch is one write transaction. WAL with `synchronous = NORMAL` keeps every committed transaction across a
/// crash of the process (a SIGKILL included) and never corrupts the file; only a power loss may undo the last
/// transactions, which the devices' next cumulative counts restore.
public final class SQLiteActivityStore: ActivityStore {
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
        try await ActivitySchema.schema.migrate(pool)
    }

    /// The schema version in the file (0 before ``migrate()``).
    public func schemaVersion() async throws -> Int {
        try await ActivitySchema.schema.version(pool)
    }

    public func apply(_ batch: [StepRecord]) async throws -> [AppliedStep] {
        guard !batch.isEmpty else { return [] }
        return try await pool.write { db in
            var known: [String: StepTally] = [:]
            let select = try db.cachedStatement(sql: "SELECT last_count, total, recent_counts, updated_at FROM device_tally WHERE device = ?")
            for device in Set(batch.map(\.device)) {
                if let row = try Row.fetchOne(select, arguments: [device]) {
                    known[device] = StepTally(lastCount: row[0], total: row[1], recentColumn: row[2], timeColumn: row[3])
                }
            }
            let prepared = PreparedBatch(batch, known: known)
            for (granularity, sums) in prepared.increments {
                let table = ActivitySchema.table(granularity)
                let upsert = try db.cachedStatement(
                    sql: """
                        INSERT INTO \(table) (device, start, steps) VALUES (?, ?, ?)
                        ON CONFLICT (device, start) DO UPDATE SET steps = \(table).steps + excluded.steps
                        """)
                for (key, steps) in sums {
                    try upsert.execute(arguments: [key.device, key.start, steps])
                }
            }
            let tally = try db.cachedStatement(
                sql: """
                    INSERT INTO device_tally (device, last_count, total, recent_counts, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (device) DO UPDATE SET last_count = excluded.last_count, total = excluded.total,
                        recent_counts = excluded.recent_counts, updated_at = excluded.updated_at
                    """)
            for (device, value) in prepared.tallies {
                try tally.execute(arguments: [device, value.lastCount ?? 0, value.total, value.recentColumn, value.timeColumn])
            }
            return prepared.applied
        }
    }

    public func tally(of device: String) async throws -> StepTally? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT last_count, total, recent_counts, updated_at FROM device_tally WHERE device = ?", arguments: [device])
                .map { StepTally(lastCount: $0[0], total: $0[1], recentColumn: $0[2], timeColumn: $0[3]) }
        }
    }

    public func history(device: String, from: Int64, to: Int64, granularity: Granularity) async throws -> [StepBucket] {
        let table = ActivitySchema.table(granularity)
        return try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT start, steps FROM \(table) WHERE device = ? AND start >= ? AND start < ? AND steps <> 0 ORDER BY start",
                arguments: [device, from, to]
            ).map { StepBucket(start: $0[0], steps: $0[1]) }
        }
    }

    @discardableResult
    public func deleteMinutes(before: Int64) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM step_minutes WHERE start < ?", arguments: [before])
            return db.changesCount
        }
    }

    public func close() async throws {
        try pool.close()
    }
}
