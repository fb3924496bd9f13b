import ActivityKit
import ActivityStore
import Foundation
import Testing

/// The cases every ``ActivityStore`` must pass, run against SQLite and against a real PostgreSQL server.
///
/// `open` opens the *same* database each time (a fresh store object), so a case can close and re-open it. Cases use
/// their own device names, so they may share a database.
struct ActivityStoreConformance: Sendable {
    enum Case: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case migrateTwice, cumulativeRules, redeliveredBatch, redeliveredAfterCrash, redeliveredFromOlderSave, buckets, historyRange,
            persistsAcrossReopen
        case retention, largeBatch, interruptedBatches

        var testDescription: String { rawValue }
    }

    let open: @Sendable () async throws -> any ActivityStore

    /// A base time: 2026-07-01T10:00:00Z.
    static let base: Double = 1_782_900_000

    static func record(_ device: String, _ count: Int64, at time: Double, zone: String = "UTC") -> StepRecord {
        let calendar = ActivityCalendar(identifier: zone)!
        return StepRecord(device: device, count: count, time: time, buckets: calendar.buckets(of: Date(timeIntervalSince1970: time)))
    }

    static func device(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    func run(_ which: Case) async throws {
        let store = try await open()
        try await store.migrate()
        do {
            switch which {
            case .migrateTwice: try await migrateTwice(store)
            case .cumulativeRules: try await cumulativeRules(store)
            case .redeliveredBatch: try await redeliveredBatch(store)
            case .redeliveredAfterCrash: try await redeliveredAfterCrash(store)
            case .redeliveredFromOlderSave: try await redeliveredFromOlderSave(store)
            case .buckets: try await buckets(store)
            case .historyRange: try await historyRange(store)
            case .persistsAcrossReopen: try await persistsAcrossReopen(store)
            case .retention: try await retention(store)
            case .largeBatch: try await largeBatch(store)
            case .interruptedBatches: try await interruptedBatches(store)
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// Sum of a device's buckets of a granularity.
    static func sum(_ store: any ActivityStore, _ device: String, _ granularity: Granularity) async throws -> Int64 {
        try await store.history(device: device, from: 0, to: Int64.max / 2, granularity: granularity).reduce(0) { $0 + $1.steps }
    }

    /// The tally total equals the sum of the minutes, the hours and the days.
    static func expectConsistent(_ store: any ActivityStore, _ device: String, total: Int64? = nil) async throws {
        let tally = try await store.tally(of: device)?.total ?? 0
        let minutes = try await sum(store, device, .minute)
        let hours = try await sum(store, device, .hour)
        let days = try await sum(store, device, .day)
        #expect(minutes == tally, "minutes \(minutes) vs tally \(tally) of \(device)")
        #expect(hours == tally, "hours \(hours) vs tally \(tally) of \(device)")
        #expect(days == tally, "days \(days) vs tally \(tally) of \(device)")
        if let total { #expect(tally == total, "tally \(tally), expected \(total) for \(device)") }
    }

    private func migrateTwice(_ store: any ActivityStore) async throws {
        try await store.migrate()
        let other = try await open()
        try await other.migrate()
        let device = Self.device("migrate")
        _ = try await other.apply([Self.record(device, 3, at: Self.base)])
        #expect(try await store.tally(of: device) == StepTally(lastCount: 3, total: 3, lastTime: Self.base))
        try await other.close()
    }

    private func cumulativeRules(_ store: any ActivityStore) async throws {
        let device = Self.device("rules")
        #expect(try await store.tally(of: device) == nil)
        let applied = try await store.apply([
            Self.record(device, 37, at: Self.base),
            Self.record(device, 50, at: Self.base + 1),
            Self.record(device, 50, at: Self.base + 2),
            Self.record(device, 8, at: Self.base + 3),
        ])
        #expect(applied.map(\.change) == [.more(delta: 37), .more(delta: 13), .repeated, .newSession(delta: 8)])
        #expect(applied.map(\.tally.total) == [37, 50, 50, 58])
        // The next batch continues from the stored tally.
        let next = try await store.apply([Self.record(device, 10, at: Self.base + 4)])
        #expect(next.map(\.change) == [.more(delta: 2)])
        #expect(try await store.tally(of: device) == StepTally(total: 60, recent: [8, 10], lastTime: Self.base + 4))
        try await Self.expectConsistent(store, device, total: 60)
    }

    private func redeliveredBatch(_ store: any ActivityStore) async throws {
        let device = Self.device("redelivered")
        let batch = [Self.record(device, 10, at: Self.base), Self.record(device, 25, at: Self.base + 30)]
        _ = try await store.apply(batch)
        let again = try await store.apply([batch[1]])
        #expect(again.map(\.change.delta) == [0])
        try await Self.expectConsistent(store, device, total: 25)
    }

    /// A crash after a batch was stored but before the broker had its acknowledgements: after the restart the broker
    /// sends the batch's messages again, then the ones that follow. Nothing counts twice, and a new session still does.
    private func redeliveredAfterCrash(_ store: any ActivityStore) async throws {
        let device = Self.device("crash")
        _ = try await store.apply((1...5).map { Self.record(device, Int64($0 * 10), at: Self.base + Double($0)) })
        let reopened = try await open()
        try await reopened.migrate()
        #expect(try await reopened.tally(of: device) == StepTally(total: 50, recent: [10, 20, 30, 40, 50], lastTime: Self.base + 5))
        // Sent again without their timestamps, so stamped when received (all at once); the new session comes later.
        let again = [20, 30, 40, 50, 60].map { Self.record(device, $0, at: Self.base + 10) }
        let applied = try await reopened.apply(again + [Self.record(device, 7, at: Self.base + 20)])
        #expect(applied.map(\.change) == [.redelivered, .redelivered, .redelivered, .repeated, .more(delta: 10), .newSession(delta: 7)])
        try await Self.expectConsistent(reopened, device, total: 67)
        try await reopened.close()
    }

    /// A broker killed before it saved its sessions comes back with an older save and sends again everything queued
    /// since: far more counts than the tally keeps as recent. Their timestamps, no later than the last count stored
    /// (which the store keeps across a reopen), tell them from a new session.
    private func redeliveredFromOlderSave(_ store: any ActivityStore) async throws {
        let device = Self.device("older-save")
        _ = try await store.apply((1...200).map { Self.record(device, Int64($0), at: Self.base + Double($0)) })
        let reopened = try await open()
        try await reopened.migrate()
        #expect(try await reopened.tally(of: device)?.lastTime == Self.base + 200)
        let again = try await reopened.apply((20...200).map { Self.record(device, Int64($0), at: Self.base + Double($0)) })
        #expect(again.allSatisfy { $0.change == .redelivered || $0.change == .repeated })
        let later = try await reopened.apply([Self.record(device, 210, at: Self.base + 210), Self.record(device, 4, at: Self.base + 300)])
        #expect(later.map(\.change) == [.more(delta: 10), .newSession(delta: 4)])
        try await Self.expectConsistent(reopened, device, total: 214)
        try await reopened.close()
    }

    private func buckets(_ store: any ActivityStore) async throws {
        let device = Self.device("buckets")
        // Berlin: 21:59:30Z is 23:59:30 local on 1 July; 22:00:30Z is 00:00:30 on 2 July.
        _ = try await store.apply([
            Self.record(device, 100, at: Self.base + 42_000 - 30, zone: "Europe/Berlin"),  // 21:39:30Z
            Self.record(device, 160, at: Self.base + 43_170, zone: "Europe/Berlin"),  // 21:59:30Z
            Self.record(device, 200, at: Self.base + 43_230, zone: "Europe/Berlin"),  // 22:00:30Z
        ])
        let minutes = try await store.history(device: device, from: 0, to: Int64.max / 2, granularity: .minute)
        #expect(minutes.map(\.steps) == [100, 60, 40])
        let days = try await store.history(device: device, from: 0, to: Int64.max / 2, granularity: .day)
        #expect(days.map(\.steps) == [160, 40])
        #expect(days.map(\.start) == [1_782_856_800, 1_782_943_200])  // 2026-06-30T22:00Z, 2026-07-01T22:00Z
        let hours = try await store.history(device: device, from: 0, to: Int64.max / 2, granularity: .hour)
        #expect(hours.map(\.steps) == [160, 40])
        try await Self.expectConsistent(store, device, total: 200)
    }

    private func historyRange(_ store: any ActivityStore) async throws {
        let device = Self.device("range")
        let other = Self.device("range-other")
        var batch: [StepRecord] = []
        for minute in 0..<10 {
            batch.append(Self.record(device, Int64((minute + 1) * 10), at: Self.base + Double(minute * 60)))
        }
        batch.append(Self.record(other, 999, at: Self.base))
        _ = try await store.apply(batch)
        let start = Int64(Self.base)
        let range = try await store.history(device: device, from: start + 120, to: start + 300, granularity: .minute)
        #expect(range.map(\.start) == [start + 120, start + 180, start + 240])  // from inclusive, to exclusive
        #expect(range.map(\.steps) == [10, 10, 10])
        #expect(try await store.history(device: device, from: start + 600, to: start + 6_000, granularity: .minute).isEmpty)
        #expect(try await Self.sum(store, other, .minute) == 999)
    }

    private func persistsAcrossReopen(_ store: any ActivityStore) async throws {
        let device = Self.device("reopen")
        _ = try await store.apply([Self.record(device, 500, at: Self.base)])
        let reopened = try await open()
        try await reopened.migrate()
        #expect(try await reopened.tally(of: device) == StepTally(lastCount: 500, total: 500, lastTime: Self.base))
        let applied = try await reopened.apply([Self.record(device, 500, at: Self.base + 1), Self.record(device, 520, at: Self.base + 2)])
        #expect(applied.map(\.change.delta) == [0, 20])
        try await Self.expectConsistent(reopened, device, total: 520)
        try await reopened.close()
    }

    private func retention(_ store: any ActivityStore) async throws {
        let device = Self.device("retention")
        // 2001: far before every other case's data, so the cut-off touches no other device.
        let old: Double = 980_000_000
        _ = try await store.apply([Self.record(device, 10, at: old), Self.record(device, 30, at: old + 3_600 * 24 * 40)])
        let deleted = try await store.deleteMinutes(before: Int64(old) + 86_400)
        #expect(deleted >= 1)
        let minutes = try await store.history(device: device, from: 0, to: Int64.max / 2, granularity: .minute)
        #expect(minutes.map(\.steps) == [20])
        #expect(try await Self.sum(store, device, .hour) == 30)
        #expect(try await Self.sum(store, device, .day) == 30)
    }

    private func largeBatch(_ store: any ActivityStore) async throws {
        let devices = (0..<200).map { Self.device("large-\($0)") }
        var batch: [StepRecord] = []
        for second in 0..<25 {
            for device in devices {
                batch.append(Self.record(device, Int64(second * 2 + 2), at: Self.base + Double(second * 7)))
            }
        }
        let applied = try await store.apply(batch)
        #expect(applied.count == 5_000)
        for device in devices.prefix(5) {
            try await Self.expectConsistent(store, device, total: 50)
        }
    }

    /// Batches cancelled while they are written, then the store re-opened: every device's tally equals its buckets,
    /// and the devices' next cumulative counts bring every total to what a clean run gives.
    private func interruptedBatches(_ store: any ActivityStore) async throws {
        let devices = (0..<50).map { Self.device("interrupted-\($0)") }
        for round in 1...20 {
            let batch = devices.map { Self.record($0, Int64(round * 10), at: Self.base + Double(round * 5)) }
            let writer = try await open()
            let task = Task { try await writer.apply(batch) }
            if round % 2 == 0 { task.cancel() }
            _ = try? await task.value
            try? await writer.close()
        }
        let reopened = try await open()
        try await reopened.migrate()
        for device in devices.prefix(10) {
            try await Self.expectConsistent(reopened, device)
        }
        // A later cumulative count restores what the cancelled batches may have lost.
        _ = try await reopened.apply(devices.map { Self.record($0, 210, at: Self.base + 110) })
        for device in devices.prefix(10) {
            try await Self.expectConsistent(reopened, device, total: 210)
        }
        try await reopened.close()
    }
}
