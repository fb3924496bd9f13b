import ActivityKit
import ActivityStore
import BusTesting
import Foundation
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

    @Test("the file is in WAL mode and at the current schema version")
    func walAndVersion() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("activity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteActivityStore(path: folder.appendingPathComponent("activity.sqlite").path)
        #expect(try await store.schemaVersion() == 0)
        try await store.migrate()
        try await store.migrate()
        #expect(try await store.schemaVersion() == 1)
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
            #expect(try await store.schemaVersion() == 1)
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
