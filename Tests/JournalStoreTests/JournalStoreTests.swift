import ActivityStore
import BusTesting
import Foundation
import JournalKit
import JournalStore
import Logging
import PostgresNIO
import Testing

@Suite("SQLiteJournalStore: the conformance cases on a temporary file")
struct SQLiteJournalStoreTests {
    @Test("conformance", arguments: JournalStoreConformance.Case.allCases)
    func conformance(_ which: JournalStoreConformance.Case) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // One file for the journal and the activity history, as the services may share it.
        let path = folder.appendingPathComponent("stepcompass.sqlite").path
        try await JournalStoreConformance(
            open: { try SQLiteJournalStore(path: path) },
            openActivity: { try SQLiteActivityStore(path: path) }
        ).run(which)
    }

    @Test("the file is in WAL mode, at the current schema version, and the activity store's version is its own")
    func walAndVersion() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("stepcompass.sqlite").path
        let store = try SQLiteJournalStore(path: path)
        #expect(try await store.schemaVersion() == 0)
        try await store.migrate()
        try await store.migrate()
        #expect(try await store.schemaVersion() == 1)
        try await store.startWalk(Walk(id: "wal", device: "wal", name: nil, started: JournalStoreConformance.base))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("stepcompass.sqlite-wal").path))

        let activity = try SQLiteActivityStore(path: path)
        #expect(try await activity.schemaVersion() == 0)
        try await activity.migrate()
        #expect(try await activity.schemaVersion() == 2)
        #expect(try await store.schemaVersion() == 1)
        try await activity.close()
        try await store.close()
    }
}

/// The PostgreSQL cases run in one test around one server, which the test stops at its end: a server left to the
/// end of the test process would outlive it (Swift Testing has no suite teardown).
@Suite("PostgresJournalStore: the conformance cases on a real server", .enabled(if: PostgresServerProcess.shouldRun))
struct PostgresJournalStoreTests {
    @Test("conformance (every case), migrations twice at the current schema version, on a throwaway server")
    func conformance() async throws {
        let server = try await PostgresServerProcess.launch(fsync: false)
        let url = server.url
        let logger = Logger(label: "test.journal.postgres")
        let conformance = JournalStoreConformance(
            open: { try PostgresJournalStore(url: url, logger: logger) },
            openActivity: { try PostgresActivityStore(url: url, logger: logger) })
        do {
            // Before any migration, and the activity store's version apart from the journal's.
            let store = try PostgresJournalStore(url: url, logger: logger)
            #expect(try await store.schemaVersion() == 0)
            try await store.close()
        } catch {
            Issue.record("schema version before migrating: \(String(reflecting: error))")
        }
        await withTaskGroup(of: Void.self) { group in
            for which in JournalStoreConformance.Case.allCases {
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
            let store = try PostgresJournalStore(url: url, logger: logger)
            try await store.migrate()
            try await store.migrate()
            #expect(try await store.schemaVersion() == 1)
            try await store.close()
            let activity = try PostgresActivityStore(url: url, logger: logger)
            #expect(try await activity.schemaVersion() == 2)
            try await activity.close()
        } catch {
            Issue.record("schema version: \(String(reflecting: error))")
        }
        await server.stop()
    }

    @Test("database URLs are read as the activity store reads them; anything else is refused")
    func urls() async throws {
        var logger = Logger(label: "test.journal.url")
        logger.logLevel = .critical
        #expect(throws: PostgresActivityStore.InvalidURL.self) {
            _ = try PostgresJournalStore(url: "mysql://x@y/z", logger: logger)
        }
        #expect(throws: PostgresActivityStore.InvalidURL.self) {
            _ = try PostgresJournalStore(url: "postgres:///nohost", logger: logger)
        }
        // A valid URL starts a client (nothing listens there; nothing is asked of it).
        let store = try PostgresJournalStore(url: "postgres://walker:s%40cret@127.0.0.1:1/journal", logger: logger)
        try await store.close()
    }
}
