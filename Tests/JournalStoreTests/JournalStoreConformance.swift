import ActivityKit
import ActivityStore
import Foundation
import JournalKit
import JournalStore
import Testing

/// The cases every ``JournalStore`` must pass, run against SQLite and against a real PostgreSQL server.
///
/// `open` opens the *same* database each time (a fresh store object), so a case can close and re-open it;
/// `openActivity` opens an activity store on that database too. Cases use their own devices and walk ids, and never
/// assume they are alone in the database (on PostgreSQL they run at the same time on one database).
struct JournalStoreConformance: Sendable {
    enum Case: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case migrateTwice, startAndStop, oneActiveWalkPerDevice, walksNewestFirst, recordRouteAndPoints, resumeAfterReopen
        case duePoints, updatePhoto, usedPhotoIDs, unknownWalk, largeRoute, sharesDatabaseWithActivity

        var testDescription: String { rawValue }
    }

    let open: @Sendable () async throws -> any JournalStore
    let openActivity: @Sendable () async throws -> any ActivityStore

    /// A base time: 2026-07-01T10:00:00.125Z (a fraction, so that times round-trip exactly or fail).
    static let base: Double = 1_782_900_000.125

    static func device(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    static func walk(_ name: String, device: String, started: Double = base, title: String? = nil) -> Walk {
        Walk(id: "\(name)-\(UUID().uuidString)", device: device, name: title, started: started)
    }

    /// Route points `range` of a walk: 10 m apart, every third without elevation, every fourth dead-reckoned.
    static func route(_ range: Range<Int>) -> [RoutePoint] {
        range.map { index in
            RoutePoint(
                time: base + Double(index) * 1.5,
                coordinate: GeoCoordinate(latitude: 52.520_008_123_456 + Double(index) * 1e-5, longitude: 13.404_954_987_654 - Double(index) * 7e-6),
                elevation: index % 3 == 0 ? nil : 34.25 + Double(index) / 8,
                source: index % 4 == 3 ? .deadReckoning : .gps,
                distance: Double(index) * 10.1)
        }
    }

    static func photoPoint(_ index: Int, shift: Double = 0) -> PhotoPoint {
        PhotoPoint(
            index: index, distance: Double(index) * 250 + shift,
            coordinate: GeoCoordinate(latitude: 48.137_154 + Double(index) * 1e-3 + shift, longitude: 11.576_124 - Double(index) * 1e-3),
            time: base + Double(index) * 180.75)
    }

    static func photo(_ id: String, source: PhotoSourceKind = .wikimedia) -> PhotoCandidate {
        PhotoCandidate(
            id: id, source: source, title: "Photo \(id)", author: "Someone", license: "CC BY 4.0",
            licenseURL: "https://creativecommons.org/licenses/by/4.0/", pageURL: "https://example.org/\(id)",
            imageURL: "https://example.org/\(id).jpg", coordinate: GeoCoordinate(latitude: 1, longitude: 2), taken: 1_500_000_000,
            width: 640, height: 427)
    }

    func run(_ which: Case) async throws {
        let store = try await open()
        try await store.migrate()
        do {
            switch which {
            case .migrateTwice: try await migrateTwice(store)
            case .startAndStop: try await startAndStop(store)
            case .oneActiveWalkPerDevice: try await oneActiveWalkPerDevice(store)
            case .walksNewestFirst: try await walksNewestFirst(store)
            case .recordRouteAndPoints: try await recordRouteAndPoints(store)
            case .resumeAfterReopen: try await resumeAfterReopen(store)
            case .duePoints: try await duePoints(store)
            case .updatePhoto: try await updatePhoto(store)
            case .usedPhotoIDs: try await usedPhotoIDs(store)
            case .unknownWalk: try await unknownWalk(store)
            case .largeRoute: try await largeRoute(store)
            case .sharesDatabaseWithActivity: try await sharesDatabaseWithActivity(store)
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    private func migrateTwice(_ store: any JournalStore) async throws {
        try await store.migrate()
        let other = try await open()
        try await other.migrate()
        let walk = Self.walk("migrate", device: Self.device("migrate"))
        try await other.startWalk(walk)
        #expect(try await store.walk(id: walk.id) == walk)
        try await other.close()
    }

    private func startAndStop(_ store: any JournalStore) async throws {
        let device = Self.device("start")
        let walk = Self.walk("start", device: device, title: "Morning 'walk' \"by the river\"")
        #expect(try await store.activeWalk(device: device) == nil)
        try await store.startWalk(walk)
        #expect(try await store.walk(id: walk.id) == walk)
        #expect(try await store.activeWalk(device: device) == walk)
        #expect(try await store.activeWalks().contains(walk))

        var stopped = walk
        stopped.stopped = Self.base + 3_600.5
        #expect(try await store.stopWalk(id: walk.id, at: Self.base + 3_600.5) == stopped)
        #expect(try await store.walk(id: walk.id) == stopped)
        #expect(try await store.activeWalk(device: device) == nil)
        #expect(try await !store.activeWalks().contains { $0.id == walk.id })
        // Stopping again changes nothing.
        #expect(try await store.stopWalk(id: walk.id, at: Self.base + 9_999) == stopped)
        #expect(try await store.stopWalk(id: "no-such-walk-\(UUID().uuidString)", at: Self.base) == nil)
        #expect(try await store.walk(id: "no-such-walk-\(UUID().uuidString)") == nil)

        // The next walk of the device, without a name.
        let next = Self.walk("start-next", device: device, started: Self.base + 4_000)
        try await store.startWalk(next)
        #expect(try await store.activeWalk(device: device) == next)
        #expect(try await store.walk(id: next.id)?.name == nil)
    }

    private func oneActiveWalkPerDevice(_ store: any JournalStore) async throws {
        let device = Self.device("one")
        let first = Self.walk("one-a", device: device)
        let second = Self.walk("one-b", device: device, started: Self.base + 10)
        try await store.startWalk(first)
        await #expect(throws: JournalStoreError.walkActive(device: device, walk: first.id)) {
            try await store.startWalk(second)
        }
        #expect(try await store.walk(id: second.id) == nil)
        // Another device is not concerned.
        let elsewhere = Self.walk("one-c", device: Self.device("one-other"))
        try await store.startWalk(elsewhere)
        // Once stopped, the device may start again.
        _ = try await store.stopWalk(id: first.id, at: Self.base + 5)
        try await store.startWalk(second)
        #expect(try await store.activeWalk(device: device) == second)

        // Two concurrent starts for one device (through two store objects): exactly one wins.
        let other = try await open()
        for round in 0..<5 {
            let raced = Self.device("race-\(round)")
            let walks = [Self.walk("race-a", device: raced), Self.walk("race-b", device: raced)]
            let stores = [store, other]
            let outcomes = await withTaskGroup(of: (String, (any Error)?).self) { group in
                for (store, walk) in zip(stores, walks) {
                    group.addTask {
                        do {
                            try await store.startWalk(walk)
                            return (walk.id, nil)
                        } catch {
                            return (walk.id, error)
                        }
                    }
                }
                var outcomes: [(String, (any Error)?)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            let winners = outcomes.filter { $0.1 == nil }.map(\.0)
            #expect(winners.count == 1, "round \(round): \(outcomes)")
            guard let winner = winners.first else { continue }
            for (_, error) in outcomes where error != nil {
                #expect(error as? JournalStoreError == .walkActive(device: raced, walk: winner), "\(String(describing: error))")
            }
            #expect(try await store.activeWalk(device: raced)?.id == winner)
        }
        try await other.close()
    }

    private func walksNewestFirst(_ store: any JournalStore) async throws {
        let device = Self.device("newest")
        let starts: [Double] = [3, 1, 4, 0, 2].map { Self.base + $0 * 1_000 }
        var walks: [Walk] = []
        for (number, start) in starts.enumerated() {
            let walk = Self.walk("newest-\(number)", device: device, started: start)
            try await store.startWalk(walk)
            walks.append(walk)
            if number < starts.count - 1 { _ = try await store.stopWalk(id: walk.id, at: start + 500) }
        }
        try await store.startWalk(Self.walk("newest-other", device: Self.device("newest-other"), started: Self.base + 9_000))
        let newestFirst = walks.sorted { $0.started > $1.started }.map(\.id)
        #expect(try await store.walks(device: device, limit: 10).map(\.id) == newestFirst)
        #expect(try await store.walks(device: device, limit: 3).map(\.id) == Array(newestFirst.prefix(3)))
        #expect(try await store.walks(device: device, limit: 0).isEmpty)
        #expect(try await store.walks(device: Self.device("nobody"), limit: 10).isEmpty)
        // The stored walks come back whole: the last one is on, the others stopped.
        let stored = try await store.walks(device: device, limit: 10)
        #expect(stored.filter(\.isActive).map(\.id) == [walks[4].id])
        #expect(stored.first { $0.id == walks[0].id }?.stopped == starts[0] + 500)
    }

    private func recordRouteAndPoints(_ store: any JournalStore) async throws {
        let device = Self.device("record")
        let walk = Self.walk("record", device: device)
        try await store.startWalk(walk)
        #expect(try await store.route(walk: walk.id).isEmpty)
        #expect(try await store.lastRoutePoint(walk: walk.id) == nil)

        let first = Self.route(0..<5)
        try await store.record(walk: walk.id, route: first, photoPoints: [Self.photoPoint(1)])
        var stored = try #require(try await store.walk(id: walk.id))
        #expect(stored.distance == first[4].distance)
        #expect(stored.routePoints == 5)
        #expect(stored.points == 1)
        #expect(stored.photos == 0)
        #expect(try await store.route(walk: walk.id) == first)
        #expect(try await store.lastRoutePoint(walk: walk.id) == first[4])

        // Point 1 again (with other values) is ignored; point 2 is new, and so is point 3, given twice in one batch.
        let second = Self.route(5..<8)
        try await store.record(
            walk: walk.id, route: second,
            photoPoints: [Self.photoPoint(1, shift: 0.5), Self.photoPoint(2), Self.photoPoint(3), Self.photoPoint(3, shift: 0.25)])
        stored = try #require(try await store.walk(id: walk.id))
        #expect(stored.distance == second[2].distance)
        #expect(stored.routePoints == 8)
        #expect(stored.points == 3)
        #expect(try await store.route(walk: walk.id) == first + second)
        #expect(try await store.lastRoutePoint(walk: walk.id) == second[2])
        #expect(try await store.photoPoints(walk: walk.id) == [1, 2, 3].map { WalkPhotoPoint(walk: walk.id, point: Self.photoPoint($0)) })

        // Nothing new: the distance stays, the counts too.
        try await store.record(walk: walk.id, route: [], photoPoints: [])
        try await store.record(walk: walk.id, route: [], photoPoints: [Self.photoPoint(2)])
        #expect(try await store.walk(id: walk.id) == stored)

        // Another walk's records do not touch this one.
        let other = Self.walk("record-other", device: Self.device("record-other"))
        try await store.startWalk(other)
        try await store.record(walk: other.id, route: Self.route(0..<2), photoPoints: [Self.photoPoint(1)])
        #expect(try await store.walk(id: walk.id) == stored)
        #expect(try await store.route(walk: walk.id).count == 8)
        #expect(try await store.route(walk: other.id) == Self.route(0..<2))
        #expect(try await store.photoPoints(walk: walk.id).count == 3)
    }

    private func resumeAfterReopen(_ store: any JournalStore) async throws {
        let device = Self.device("resume")
        let walk = Self.walk("resume", device: device, title: "Ünïcödé 🚶 walk")
        let finished = Self.walk("resume-finished", device: Self.device("resume-finished"))
        let first = try await open()
        try await first.migrate()
        try await first.startWalk(walk)
        try await first.startWalk(finished)
        _ = try await first.stopWalk(id: finished.id, at: Self.base + 60)
        let route = Self.route(0..<3)
        try await first.record(walk: walk.id, route: route, photoPoints: [Self.photoPoint(1)])
        try await first.close()

        let second = try await open()
        try await second.migrate()
        let active = try await second.activeWalks()
        var expected = walk
        expected.distance = route[2].distance
        expected.routePoints = 3
        expected.points = 1
        #expect(active.filter { $0.id == walk.id } == [expected])
        #expect(!active.contains { $0.id == finished.id })
        #expect(try await second.activeWalk(device: device) == expected)
        #expect(try await second.lastRoutePoint(walk: walk.id) == route[2])
        #expect(try await second.photoPoints(walk: walk.id) == [WalkPhotoPoint(walk: walk.id, point: Self.photoPoint(1))])
        // The route goes on where it stopped.
        let more = Self.route(3..<6)
        try await second.record(walk: walk.id, route: more, photoPoints: [Self.photoPoint(2)])
        #expect(try await second.route(walk: walk.id) == route + more)
        #expect(try await second.walk(id: walk.id)?.routePoints == 6)
        try await second.close()
    }

    /// The order of ``JournalStore/duePhotoPoints(now:limit:)``: nil next attempt first, then by time, walk, index.
    static func dueOrder(_ left: WalkPhotoPoint, _ right: WalkPhotoPoint) -> Bool {
        switch (left.nextAttempt, right.nextAttempt) {
        case (nil, .some): return true
        case (.some, nil): return false
        case (.some(let a), .some(let b)) where a != b: return a < b
        default:
            if left.walk != right.walk { return Array(left.walk.utf8).lexicographicallyPrecedes(Array(right.walk.utf8)) }
            return left.point.index < right.point.index
        }
    }

    private func duePoints(_ store: any JournalStore) async throws {
        // Other cases' pending points may be due too: the checks look at this case's walks, and at the order of all.
        let suffix = UUID().uuidString
        let a = Walk(id: "due-a-\(suffix)", device: Self.device("due-a"), name: nil, started: Self.base)
        let b = Walk(id: "due-b-\(suffix)", device: Self.device("due-b"), name: nil, started: Self.base)
        try await store.startWalk(a)
        try await store.startWalk(b)
        try await store.record(walk: a.id, route: Self.route(0..<2), photoPoints: (1...4).map { Self.photoPoint($0) })
        try await store.record(walk: b.id, route: Self.route(0..<2), photoPoints: (1...3).map { Self.photoPoint($0) })
        let a1 = WalkPhotoPoint(walk: a.id, point: Self.photoPoint(1))
        let a2 = WalkPhotoPoint(walk: a.id, point: Self.photoPoint(2), attempts: 1, nextAttempt: Self.base + 100, lastError: "timeout")
        let a3 = WalkPhotoPoint(
            walk: a.id, point: Self.photoPoint(3), status: .found, photo: Self.photo("due:3"), cachedFile: "due3.jpg", attempts: 1)
        let a4 = WalkPhotoPoint(walk: a.id, point: Self.photoPoint(4), status: .none, attempts: 2)
        let b1 = WalkPhotoPoint(walk: b.id, point: Self.photoPoint(1))
        let b2 = WalkPhotoPoint(walk: b.id, point: Self.photoPoint(2), attempts: 3, nextAttempt: Self.base + 50, lastError: "HTTP 503")
        let b3 = WalkPhotoPoint(walk: b.id, point: Self.photoPoint(3), attempts: 1, nextAttempt: Self.base + 1_000, lastError: "later")
        for point in [a2, a3, a4, b2, b3] { try await store.update(point) }
        // A stopped walk's points are still due.
        _ = try await store.stopWalk(id: a.id, at: Self.base + 10)

        func mine(now: Double) async throws -> [WalkPhotoPoint] {
            let due = try await store.duePhotoPoints(now: now, limit: 100_000)
            #expect(due.allSatisfy { $0.status == .pending && ($0.nextAttempt ?? -.infinity) <= now })
            #expect(zip(due, due.dropFirst()).allSatisfy { Self.dueOrder($0, $1) }, "the due points are not in order")
            return due.filter { $0.walk == a.id || $0.walk == b.id }
        }
        #expect(try await mine(now: Self.base + 200) == [a1, b1, b2, a2])
        #expect(try await mine(now: Self.base + 75) == [a1, b1, b2])
        #expect(try await mine(now: Self.base + 50) == [a1, b1, b2])  // <= now
        #expect(try await mine(now: Self.base + 5_000) == [a1, b1, b2, a2, b3])

        let limited = try await store.duePhotoPoints(now: Self.base + 200, limit: 2)
        #expect(limited.count == 2)
        #expect(Self.dueOrder(limited[0], limited[1]))
        #expect(try await store.duePhotoPoints(now: Self.base + 200, limit: 0).isEmpty)

        // Found or none: no longer due.
        try await store.update(WalkPhotoPoint(walk: b.id, point: Self.photoPoint(1), status: .none, attempts: 1))
        try await store.update(WalkPhotoPoint(walk: b.id, point: Self.photoPoint(2), status: .found, photo: Self.photo("due:b2"), attempts: 4))
        #expect(try await mine(now: Self.base + 5_000) == [a1, a2, b3])
    }

    private func updatePhoto(_ store: any JournalStore) async throws {
        let walk = Self.walk("photo", device: Self.device("photo"))
        try await store.startWalk(walk)
        try await store.record(walk: walk.id, route: Self.route(0..<3), photoPoints: (1...3).map { Self.photoPoint($0) })
        let full = PhotoCandidate(
            id: "wikimedia:123456", source: .wikimedia,
            title: "L'Église « Saint-Jean » \"au bord\" — 東京タワー'); DROP TABLE journal_walks; --",
            author: "Zoë O'Brien 🚶‍♀️ <b>not HTML</b>", license: "CC BY-SA 4.0",
            licenseURL: "https://creativecommons.org/licenses/by-sa/4.0/",
            pageURL: "https://commons.wikimedia.org/wiki/File:%C3%89glise_'x'.jpg",
            imageURL: "https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/%C3%89glise.jpg/640px-%C3%89glise.jpg",
            coordinate: GeoCoordinate(latitude: 48.856_612_345_678_9, longitude: 2.352_221_987_654_3), taken: 1_600_000_000.123_456,
            width: 640, height: 427)
        let bare = PhotoCandidate(
            id: "flickr:987654321", source: .flickr, title: "", author: nil, license: "Public domain", licenseURL: nil,
            pageURL: "https://www.flickr.com/photos/x/987654321", imageURL: "https://live.staticflickr.com/1/987654321_z.jpg",
            coordinate: nil, taken: nil, width: nil, height: nil)
        let p1 = WalkPhotoPoint(
            walk: walk.id, point: Self.photoPoint(1), status: .found, photo: full, cachedFile: "0001-wikimedia-123456.jpg", attempts: 1)
        let p2 = WalkPhotoPoint(walk: walk.id, point: Self.photoPoint(2), status: .found, photo: bare, cachedFile: "flickr 'quoted'.jpg", attempts: 2)
        let p3 = WalkPhotoPoint(
            walk: walk.id, point: Self.photoPoint(3), status: .pending, attempts: 2, nextAttempt: Self.base + 60.25,
            lastError: "HTTP 503: \"busy\"; retry 'later' — ⏳")
        for point in [p1, p2, p3] { try await store.update(point) }
        #expect(try await store.photoPoints(walk: walk.id) == [p1, p2, p3])
        var stored = try #require(try await store.walk(id: walk.id))
        #expect(stored.photos == 2)
        #expect(stored.points == 3)

        // A photo lost again (status none): its photo goes, the count follows.
        let p2none = WalkPhotoPoint(walk: walk.id, point: Self.photoPoint(2), status: .none, attempts: 3)
        try await store.update(p2none)
        // A retry that succeeded clears the error and the next attempt.
        let p3found = WalkPhotoPoint(
            walk: walk.id, point: Self.photoPoint(3), status: .found, photo: Self.photo("flickr:3", source: .flickr), cachedFile: "3.jpg", attempts: 3
        )
        try await store.update(p3found)
        #expect(try await store.photoPoints(walk: walk.id) == [p1, p2none, p3found])
        stored = try #require(try await store.walk(id: walk.id))
        #expect(stored.photos == 2)
        #expect(stored.points == 3)
        #expect(stored.routePoints == 3)
    }

    private func usedPhotoIDs(_ store: any JournalStore) async throws {
        let walk = Self.walk("used", device: Self.device("used"))
        let other = Self.walk("used-other", device: Self.device("used-other"))
        try await store.startWalk(walk)
        try await store.startWalk(other)
        #expect(try await store.usedPhotoIDs(walk: walk.id).isEmpty)
        try await store.record(walk: walk.id, route: [], photoPoints: (1...4).map { Self.photoPoint($0) })
        try await store.record(walk: other.id, route: [], photoPoints: [Self.photoPoint(1)])
        try await store.update(
            WalkPhotoPoint(walk: walk.id, point: Self.photoPoint(1), status: .found, photo: Self.photo("wikimedia:1"), attempts: 1))
        try await store.update(
            WalkPhotoPoint(walk: walk.id, point: Self.photoPoint(2), status: .found, photo: Self.photo("flickr:2", source: .flickr), attempts: 1))
        try await store.update(WalkPhotoPoint(walk: walk.id, point: Self.photoPoint(3), status: .none, attempts: 1))
        try await store.update(
            WalkPhotoPoint(walk: other.id, point: Self.photoPoint(1), status: .found, photo: Self.photo("wikimedia:99"), attempts: 1))
        #expect(try await store.usedPhotoIDs(walk: walk.id) == ["wikimedia:1", "flickr:2"])
        #expect(try await store.usedPhotoIDs(walk: other.id) == ["wikimedia:99"])
        #expect(try await store.usedPhotoIDs(walk: "no-such-walk-\(UUID().uuidString)").isEmpty)
        #expect(try await store.walk(id: walk.id)?.photos == 2)
    }

    private func unknownWalk(_ store: any JournalStore) async throws {
        let unknown = "unknown-\(UUID().uuidString)"
        await #expect(throws: JournalStoreError.unknownWalk(unknown)) {
            try await store.record(walk: unknown, route: Self.route(0..<3), photoPoints: [Self.photoPoint(1)])
        }
        await #expect(throws: JournalStoreError.unknownWalk(unknown)) {
            try await store.record(walk: unknown, route: [], photoPoints: [])
        }
        await #expect(throws: JournalStoreError.unknownWalk(unknown)) {
            try await store.update(WalkPhotoPoint(walk: unknown, point: Self.photoPoint(1), status: .none, attempts: 1))
        }
        #expect(try await store.walk(id: unknown) == nil)
        #expect(try await store.stopWalk(id: unknown, at: Self.base) == nil)
        #expect(try await store.route(walk: unknown).isEmpty)
        #expect(try await store.lastRoutePoint(walk: unknown) == nil)
        #expect(try await store.photoPoints(walk: unknown).isEmpty)
        #expect(try await store.usedPhotoIDs(walk: unknown).isEmpty)
        #expect(JournalStoreError.unknownWalk(unknown).description.contains(unknown))
        #expect(JournalStoreError.walkActive(device: "dev", walk: "w1").description.contains("w1"))

        // The store still works after the refusals (no transaction left open).
        let walk = Self.walk("after-unknown", device: Self.device("after-unknown"))
        try await store.startWalk(walk)
        try await store.record(walk: walk.id, route: Self.route(0..<1), photoPoints: [])
        #expect(try await store.walk(id: walk.id)?.routePoints == 1)
    }

    private func largeRoute(_ store: any JournalStore) async throws {
        let walk = Self.walk("large", device: Self.device("large"))
        try await store.startWalk(walk)
        let route = Self.route(0..<10_000)
        let points = (1...40).map { Self.photoPoint($0) }
        try await store.record(walk: walk.id, route: route, photoPoints: points)
        let stored = try #require(try await store.walk(id: walk.id))
        #expect(stored.routePoints == 10_000)
        #expect(stored.points == 40)
        #expect(stored.distance == route[9_999].distance)
        #expect(try await store.route(walk: walk.id) == route)
        #expect(try await store.lastRoutePoint(walk: walk.id) == route[9_999])
        // And a small batch after the large one goes on after it.
        let more = Self.route(10_000..<10_003)
        try await store.record(walk: walk.id, route: more, photoPoints: [])
        #expect(try await store.lastRoutePoint(walk: walk.id) == more[2])
        #expect(try await store.route(walk: walk.id).suffix(4) == [route[9_999]] + more)
    }

    private func sharesDatabaseWithActivity(_ store: any JournalStore) async throws {
        // The journal is migrated (by `run`); the activity store migrates next to it, then the journal again.
        let activity = try await openActivity()
        do {
            try await activity.migrate()
            try await store.migrate()
            try await activity.migrate()
            let device = Self.device("shared")
            let time = Self.base
            let buckets = ActivityCalendar.utc.buckets(of: Date(timeIntervalSince1970: time))
            _ = try await activity.apply([
                StepRecord(device: device, count: 40, time: time, buckets: buckets),
                StepRecord(device: device, count: 75, time: time + 1, buckets: buckets),
            ])
            #expect(try await activity.tally(of: device) == StepTally(total: 75, recent: [40, 75], lastTime: time + 1))

            let walk = Self.walk("shared", device: device)
            try await store.startWalk(walk)
            try await store.record(walk: walk.id, route: Self.route(0..<4), photoPoints: [Self.photoPoint(1)])
            #expect(try await store.walk(id: walk.id)?.routePoints == 4)

            // A fresh journal store on the database, migrated after the activity store, sees both.
            let again = try await open()
            try await again.migrate()
            #expect(try await again.walk(id: walk.id)?.points == 1)
            try await again.close()
            #expect(try await activity.history(device: device, from: 0, to: Int64.max / 2, granularity: .day).map(\.steps) == [75])
        } catch {
            try? await activity.close()
            throw error
        }
        try await activity.close()
    }
}
