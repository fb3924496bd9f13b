import ActivityKit
import ActivityStore
import BusTesting
import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing

@Suite("SQLiteActivityStore: the conformance cases on a temporary file")
struct SQLiteActivityStoreTests {
    @Test("conformance", arguments: ActivityStoreConformance.Case.allCases)
    func conformance(_ which: ActivityStoreConformance.Case) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("activity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("activity.sqlite").path
        try await ActivityStoreConformance(open: { try SQLiteActivityStore(path: path) }).run(which)
    }

    @Test("a version 1 file migrates to version 2: its tallies keep their counts, and their last count is the recent one")
    func fromVersion1() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("activity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("activity.sqlite").path
        // The file as version 1 of the schema left it.
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL);
                    INSERT INTO schema_version VALUES (1, 0);
                    CREATE TABLE device_tally (device TEXT PRIMARY KEY, last_count BIGINT NOT NULL, total BIGINT NOT NULL,
                        updated_at DOUBLE PRECISION NOT NULL);
                    CREATE TABLE step_minutes (device TEXT NOT NULL, start BIGINT NOT NULL, steps BIGINT NOT NULL, PRIMARY KEY (device, start));
                    CREATE TABLE step_hours (device TEXT NOT NULL, start BIGINT NOT NULL, steps BIGINT NOT NULL, PRIMARY KEY (device, start));
                    CREATE TABLE step_days (device TEXT NOT NULL, start BIGINT NOT NULL, steps BIGINT NOT NULL, PRIMARY KEY (device, start));
                    CREATE INDEX step_minutes_start ON step_minutes (start);
                    INSERT INTO device_tally VALUES ('old', 120, 300, 0);
                    """)
        }
        try old.close()
        let store = try SQLiteActivityStore(path: path)
        #expect(try await store.schemaVersion() == 1)
        try await store.migrate()
        #expect(try await store.schemaVersion() == 2)
        #expect(try await store.tally(of: "old") == StepTally(total: 300, recent: [120]))
        let applied = try await store.apply([
            ActivityStoreConformance.record("old", 120, at: ActivityStoreConformance.base),
            ActivityStoreConformance.record("old", 130, at: ActivityStoreConformance.base + 1),
        ])
        #expect(applied.map(\.change) == [.repeated, .more(delta: 10)])
        #expect(try await store.tally(of: "old")?.recent == [120, 130])
        try await store.close()
    }

    @Test("the file is in WAL mode and at the current schema version")
    func walAndVersion() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("activity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteActivityStore(path: folder.appendingPathComponent("activity.sqlite").path)
        #expect(try await store.schemaVersion() == 0)
        try await store.migrate()
        try await store.migrate()
        #expect(try await store.schemaVersion() == 2)
        _ = try await store.apply([ActivityStoreConformance.record("wal", 1, at: ActivityStoreConformance.base)])
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("activity.sqlite-wal").path))
        try await store.close()
    }
}

/// The PostgreSQL cases run in one test around one server, which the test stops at its end: a server left to the
/// end of the test process would outlive it (Swift Testing has no suite teardown).
@Suite("PostgresActivityStore: the conformance cases on a real server", .enabled(if: PostgresServerProcess.shouldRun))
struct PostgresActivityStoreTests {
    @Test("conformance (every case), migrations twice at the current schema version, on a throwaway server")
    func conformance() async throws {
        let server = try await PostgresServerProcess.launch(fsync: false)
        let url = server.url
        let logger = Logger(label: "test.activity.postgres")
        let conformance = ActivityStoreConformance(open: { try PostgresActivityStore(url: url, logger: logger) })
        await withTaskGroup(of: Void.self) { group in
            for which in ActivityStoreConformance.Case.allCases {
                group.addTask {
                    do {
                        try await conformance.run(which)
                    } catch {
                        Issue.record("case \(which.rawValue): \(String(reflecting: error))")
                    }
                }
            }
        }
        do {
            let store = try PostgresActivityStore(url: url, logger: logger)
            try await store.migrate()
            try await store.migrate()
            #expect(try await store.schemaVersion() == 2)
            try await store.close()
        } catch {
            Issue.record("schema version: \(String(reflecting: error))")
        }
        await server.stop()
    }

    @Test("database URLs: user, password, port, database, sslmode; anything else is refused")
    func urls() throws {
        let configuration = try PostgresActivityStore.configuration(url: "postgres://walker:s%40cret@db.example:6543/steps")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "walker")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "steps")
        #expect(throws: PostgresActivityStore.InvalidURL.self) { try PostgresActivityStore.configuration(url: "mysql://x@y/z") }
        #expect(throws: PostgresActivityStore.InvalidURL.self) { try PostgresActivityStore.configuration(url: "postgres:///nohost") }
    }
}
