public import ActivityKit
import Foundation
public import Logging
public import PostgresNIO

/// The PostgreSQL store (`--database-url postgres://user:password@host:port/database`), through postgres-nio.
///
/// A batch is one transaction: the tallies of its devices are read `FOR UPDATE`, and the buckets are upserted with
/// one `INSERT ... SELECT FROM UNNEST(...) ON CONFLICT` per granularity, whatever the size of the batch.
public final class PostgresActivityStore: ActivityStore {
    private let client: PostgresClient
    private let running: Task<Void, Never>
    private let logger: Logger

    /// Why a database URL cannot be used.
    public struct InvalidURL: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Connects to the server of a `postgres://` (or `postgresql://`) URL; `?sslmode=require` asks for TLS,
    /// `prefer` tries it, anything else (the default) connects without.
    /// - Throws: ``InvalidURL`` for a URL that is not one.
    public convenience init(url: String, logger: Logger) throws {
        try self.init(configuration: Self.configuration(url: url), logger: logger)
    }

    /// Starts a client with `configuration` (its connections open on first use).
    public init(configuration: PostgresClient.Configuration, logger: Logger) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.running = Task { await client.run() }
    }

    /// The client configuration of a database URL (the password is never logged).
    public static func configuration(url text: String) throws(InvalidURL) -> PostgresClient.Configuration {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql", let host = url.host, !host.isEmpty
        else {
            throw InvalidURL(description: "the database URL is not postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        let mode = url.queryItems?.first { $0.name == "sslmode" }?.value?.lowercased()
        let tls: PostgresClient.Configuration.TLS
        switch mode {
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        case "prefer": tls = .prefer(.makeClientConfiguration())
        default: tls = .disable
        }
        return PostgresClient.Configuration(
            host: host, port: url.port ?? 5432, username: url.user?.removingPercentEncoding ?? "postgres",
            password: url.password?.removingPercentEncoding, database: database.isEmpty ? nil : database, tls: tls)
    }

    public func migrate() async throws {
        try await ActivitySchema.schema.migrate(client, logger: logger)
    }

    /// The schema version in the database (0 before ``migrate()``).
    public func schemaVersion() async throws -> Int {
        try await ActivitySchema.schema.version(client, logger: logger)
    }

    public func apply(_ batch: [StepRecord]) async throws -> [AppliedStep] {
        guard !batch.isEmpty else { return [] }
        let logger = logger
        return try await client.withTransaction(logger: logger) { connection in
            let devices = Array(Set(batch.map(\.device))).sorted()
            var known: [String: StepTally] = [:]
            let rows = try await connection.query(
                "SELECT device, last_count, total, recent_counts, updated_at FROM device_tally WHERE device = ANY(\(devices)) ORDER BY device FOR UPDATE",
                logger: logger)
            for try await (device, last, total, recent, time) in rows.decode((String, Int64, Int64, String, Double).self) {
                known[device] = StepTally(lastCount: last, total: total, recentColumn: recent, timeColumn: time)
            }
            let prepared = PreparedBatch(batch, known: known)
            for granularity in Granularity.allCases {
                guard let sums = prepared.increments[granularity], !sums.isEmpty else { continue }
                let entries = sums.sorted { ($0.key.device, $0.key.start) < ($1.key.device, $1.key.start) }
                let table = ActivitySchema.table(granularity)
                let names = entries.map(\.key.device)
                let starts = entries.map(\.key.start)
                let steps = entries.map(\.value)
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: table) (device, start, steps)
                    SELECT * FROM UNNEST(\(names)::text[], \(starts)::bigint[], \(steps)::bigint[])
                    ON CONFLICT (device, start) DO UPDATE SET steps = \(unescaped: table).steps + EXCLUDED.steps
                    """, logger: logger)
            }
            let tallied = prepared.tallies.sorted { $0.key < $1.key }
            let names = tallied.map(\.key)
            let lasts = tallied.map { $0.value.lastCount ?? 0 }
            let totals = tallied.map(\.value.total)
            let recents = tallied.map(\.value.recentColumn)
            let times = tallied.map(\.value.timeColumn)
            try await connection.query(
                """
                INSERT INTO device_tally (device, last_count, total, recent_counts, updated_at)
                SELECT * FROM UNNEST(\(names)::text[], \(lasts)::bigint[], \(totals)::bigint[], \(recents)::text[],
                    \(times)::double precision[])
                ON CONFLICT (device) DO UPDATE SET last_count = EXCLUDED.last_count, total = EXCLUDED.total,
                    recent_counts = EXCLUDED.recent_counts, updated_at = EXCLUDED.updated_at
                """, logger: logger)
            return prepared.applied
        }
    }

    public func tally(of device: String) async throws -> StepTally? {
        let rows = try await client.query(
            "SELECT last_count, total, recent_counts, updated_at FROM device_tally WHERE device = \(device)", logger: logger)
        var tally: StepTally?
        for try await (last, total, recent, time) in rows.decode((Int64, Int64, String, Double).self) {
            tally = StepTally(lastCount: last, total: total, recentColumn: recent, timeColumn: time)
        }
        return tally
    }

    public func history(device: String, from: Int64, to: Int64, granularity: Granularity) async throws -> [StepBucket] {
        let table = ActivitySchema.table(granularity)
        let rows = try await client.query(
            "SELECT start, steps FROM \(unescaped: table) WHERE device = \(device) AND start >= \(from) AND start < \(to) AND steps <> 0 ORDER BY start",
            logger: logger)
        var buckets: [StepBucket] = []
        for try await (start, steps) in rows.decode((Int64, Int64).self) {
            buckets.append(StepBucket(start: start, steps: steps))
        }
        return buckets
    }

    @discardableResult
    public func deleteMinutes(before: Int64) async throws -> Int {
        let rows = try await client.query(
            "WITH deleted AS (DELETE FROM step_minutes WHERE start < \(before) RETURNING 1) SELECT COUNT(*) FROM deleted",
            logger: logger)
        var count: Int64 = 0
        for try await value in rows.decode(Int64.self) { count = value }
        return Int(count)
    }

    public func close() async throws {
        running.cancel()
        await running.value
    }
}
