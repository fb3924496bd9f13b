public import Foundation
public import GRDB
public import Logging
public import PostgresNIO

/// A schema as a list of versions, migrated the same way in SQLite and PostgreSQL: each version's statements in its
/// own transaction, its number recorded in the schema's own version table, so several schemas (the activity history,
/// the journal) can share one database and migrate independently.
public struct VersionedSchema: Sendable {
    /// The table recording the versions applied (a constant of the code, never user input).
    public let versionTable: String
    /// The statements of each version (index 0 is version 1), plain SQL both databases accept.
    public let versions: [[String]]
    /// PostgreSQL's advisory lock key, so that two instances migrating at once take turns.
    public let lockKey: Int64

    public init(versionTable: String, versions: [[String]], lockKey: Int64) {
        self.versionTable = versionTable
        self.versions = versions
        self.lockKey = lockKey
    }

    /// A SQLite pool as both stores open theirs: write-ahead log, `synchronous = NORMAL`, a 10 s busy timeout.
    public static func sqlitePool(path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return try DatabasePool(path: path, configuration: configuration)
    }

    /// Creates or upgrades the schema in SQLite (idempotent).
    public func migrate(_ pool: DatabasePool) async throws {
        let table = versionTable
        let versions = versions
        try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(table) (version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
            for (index, statements) in versions.enumerated() {
                let version = index + 1
                try db.inTransaction(.immediate) {
                    let done = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE version = ?", arguments: [version]) ?? 0
                    guard done == 0 else { return .commit }
                    for statement in statements { try db.execute(sql: statement) }
                    try db.execute(
                        sql: "INSERT INTO \(table) (version, applied_at) VALUES (?, ?)", arguments: [version, Date().timeIntervalSince1970])
                    return .commit
                }
            }
        }
    }

    /// The version in a SQLite file (0 before migrating).
    public func version(_ pool: DatabasePool) async throws -> Int {
        let table = versionTable
        return try await pool.read { db in
            guard try db.tableExists(table) else { return 0 }
            return try Int.fetchOne(db, sql: "SELECT MAX(version) FROM \(table)") ?? 0
        }
    }

    /// Creates or upgrades the schema in PostgreSQL (idempotent; concurrent migrators wait for each other).
    public func migrate(_ client: PostgresClient, logger: Logger) async throws {
        for (index, statements) in versions.enumerated() {
            let version = index + 1
            try await client.withTransaction(logger: logger) { connection in
                // One migrator at a time (even the creation of the version table is not safe to race): a second
                // instance waits here and then finds the version done.
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS \(unescaped: versionTable) (version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)",
                    logger: logger)
                let rows = try await connection.query("SELECT COUNT(*) FROM \(unescaped: versionTable) WHERE version = \(version)", logger: logger)
                var done: Int64 = 0
                for try await count in rows.decode(Int64.self) { done = count }
                guard done == 0 else { return }
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO \(unescaped: versionTable) (version, applied_at) VALUES (\(version), \(Date().timeIntervalSince1970))",
                    logger: logger)
            }
        }
    }

    /// The version in a PostgreSQL database (0 before migrating).
    public func version(_ client: PostgresClient, logger: Logger) async throws -> Int {
        let exists = try await client.query("SELECT to_regclass(\(versionTable)) IS NOT NULL", logger: logger)
        var found = false
        for try await value in exists.decode(Bool.self) { found = value }
        guard found else { return 0 }
        let rows = try await client.query("SELECT COALESCE(MAX(version), 0) FROM \(unescaped: versionTable)", logger: logger)
        var version = 0
        for try await value in rows.decode(Int32.self) { version = Int(value) }
        return version
    }
}
