import Foundation
import JournalKit
import Testing

@Suite("RouteTracker: route points, distance and photo points from fixes and dead reckoning")
struct RouteTrackerTests {
    let base = GeoCoordinate(latitude: 52.52, longitude: 13.405)

    /// `metres` north of the base (and `east` metres east).
    func at(_ metres: Double, east: Double = 0) -> GeoCoordinate {
        Geodesy.offset(base, north: metres, east: east)
    }

    func near(_ a: Double, _ b: Double, _ tolerance: Double = 1e-6) -> Bool {
        abs(a - b) <= tolerance
    }

    @Test("the first good fix is the first route point, at distance 0, with the fix's altitude")
    func firstFix() {
        var tracker = RouteTracker()
        let update = tracker.fix(base, altitude: 34, horizontalAccuracy: 8, time: 1000)
        #expect(update.rejection == nil)
        #expect(update.photoPoints.isEmpty)
        #expect(update.points == [RoutePoint(time: 1000, coordinate: base, elevation: 34, source: .gps, distance: 0)])
        #expect(tracker.last == update.points.first)
        #expect(tracker.distance == 0)
        #expect(tracker.photoPointsReached == 0)
    }

    @Test("distance adds up along the route and a photo point is interpolated where it is crossed")
    func photoPointInterpolated() throws {
        var tracker = RouteTracker()
        _ = tracker.fix(at(0), altitude: nil, horizontalAccuracy: nil, time: 0)
        let second = tracker.fix(at(60), altitude: 40, horizontalAccuracy: 5, time: 40)
        #expect(second.photoPoints.isEmpty)
        #expect(near(try #require(second.points.first).distance, 60))
        #expect(second.points.first?.elevation == 40)

        // 60 m → 130 m: the segment is 70 m long, 100 m is 40/70 = 4/7 of the way, at t = 40 + 50 × 4/7 = 68.571 s.
        let third = tracker.fix(at(130), altitude: nil, horizontalAccuracy: 5, time: 90)
        #expect(near(tracker.distance, 130))
        let photo = try #require(third.photoPoints.first)
        #expect(third.photoPoints.count == 1)
        #expect(photo.index == 1)
        #expect(photo.distance == 100)
        #expect(near(photo.time, 40 + 50.0 * 4 / 7))
        #expect(Geodesy.distance(photo.coordinate, at(100)) < 0.001)
        #expect(tracker.photoPointsReached == 1)
    }

    @Test("GPS jitter while standing still adds no point and no distance")
    func jitter() {
        var tracker = RouteTracker()
        _ = tracker.fix(base, altitude: 34, horizontalAccuracy: 5, time: 0)
        // A deterministic wander within ±2.5 m of the base (less than the 5 m spacing), once a second for 10 minutes.
        for second in 1...600 {
            let t = Double(second)
            let update = tracker.fix(at(2.5 * sin(t * 0.7), east: 2.5 * cos(t * 1.3)), altitude: 34, horizontalAccuracy: 5, time: t)
            #expect(update == RouteTracker.Update())
        }
        #expect(tracker.distance == 0)
        #expect(tracker.last?.time == 0)
    }

    @Test("a point is added once it is at least the minimum spacing from the last one (not from the last fix)")
    func spacingFromLastPoint() {
        var tracker = RouteTracker()
        _ = tracker.fix(at(0), altitude: nil, horizontalAccuracy: nil, time: 0)
        #expect(tracker.fix(at(3), altitude: nil, horizontalAccuracy: nil, time: 2).points.isEmpty)
        #expect(tracker.fix(at(4.9), altitude: nil, horizontalAccuracy: nil, time: 4).points.isEmpty)
        let update = tracker.fix(at(5.1), altitude: nil, horizontalAccuracy: nil, time: 6)
        #expect(update.points.count == 1)
        #expect(near(tracker.distance, 5.1))
    }

    @Test("inaccurate fixes are rejected with their accuracy; nil accuracy is accepted")
    func inaccurate() {
        var tracker = RouteTracker()
        #expect(tracker.fix(base, altitude: nil, horizontalAccuracy: 80, time: 0).rejection == .inaccurate(80))
        #expect(tracker.fix(base, altitude: nil, horizontalAccuracy: -1, time: 0).rejection == .inaccurate(-1))
        #expect(tracker.fix(base, altitude: nil, horizontalAccuracy: .infinity, time: 0).rejection == .inaccurate(.infinity))
        guard case .inaccurate(let value)? = tracker.fix(base, altitude: nil, horizontalAccuracy: .nan, time: 0).rejection else {
            Issue.record("a NaN accuracy must be rejected")
            return
        }
        #expect(value.isNaN)
        #expect(tracker.last == nil)
        #expect(tracker.fix(base, altitude: nil, horizontalAccuracy: 50, time: 0).rejection == nil)
        #expect(tracker.last != nil)
        var strict = RouteTracker(settings: .init(maximumAccuracy: 10))
        #expect(strict.fix(base, altitude: nil, horizontalAccuracy: 10.5, time: 0).rejection == .inaccurate(10.5))
        #expect(strict.fix(base, altitude: nil, horizontalAccuracy: nil, time: 0).rejection == nil)
    }

    @Test("invalid coordinates are rejected")
    func invalid() {
        var tracker = RouteTracker()
        #expect(tracker.fix(GeoCoordinate(latitude: 91, longitude: 0), altitude: nil, horizontalAccuracy: 5, time: 0).rejection == .invalidCoordinate)
        #expect(
            tracker.fix(GeoCoordinate(latitude: 0, longitude: .nan), altitude: nil, horizontalAccuracy: 5, time: 0).rejection == .invalidCoordinate)
        #expect(tracker.last == nil)
    }

    @Test("a fix older than the last route point is out of order")
    func outOfOrder() {
        var tracker = RouteTracker()
        _ = tracker.fix(at(0), altitude: nil, horizontalAccuracy: nil, time: 100)
        #expect(tracker.fix(at(10), altitude: nil, horizontalAccuracy: nil, time: 50).rejection == .outOfOrder)
        #expect(tracker.fix(at(10), altitude: nil, horizontalAccuracy: nil, time: .nan).rejection == .outOfOrder)
        #expect(tracker.distance == 0)
        #expect(tracker.fix(at(10), altitude: nil, horizontalAccuracy: nil, time: 110).points.count == 1)
    }

    @Test("a jump faster than the maximum speed is rejected with the speed it implies")
    func tooFast() throws {
        var tracker = RouteTracker()
        _ = tracker.fix(at(0), altitude: nil, horizontalAccuracy: nil, time: 0)
        // 1 000 m in 10 s is 100 m/s.
        let jump = tracker.fix(at(1000), altitude: nil, horizontalAccuracy: 5, time: 10)
        guard case .tooFast(let speed)? = jump.rejection else {
            Issue.record("expected tooFast, got \(String(describing: jump.rejection))")
            return
        }
        #expect(near(speed, 100, 1e-3))
        #expect(jump.points.isEmpty)
        // Same time, 20 m away: an infinite speed. Same time, 3 m away: fine, just no point.
        #expect(tracker.fix(at(20), altitude: nil, horizontalAccuracy: 5, time: 0).rejection == .tooFast(.infinity))
        #expect(tracker.fix(at(3), altitude: nil, horizontalAccuracy: 5, time: 0) == RouteTracker.Update())
        // 140 m in 10 s is 14 m/s: allowed.
        #expect(tracker.fix(at(140), altitude: nil, horizontalAccuracy: 5, time: 10).points.count == 1)
    }

    @Test("a long GPS gap then a far fix under the speed limit crosses several photo points, all interpolated")
    func severalPhotoPoints() throws {
        var tracker = RouteTracker()
        _ = tracker.fix(at(0), altitude: nil, horizontalAccuracy: nil, time: 0)
        // 350 m in 300 s (1.17 m/s): photo points at 100, 200 and 300 m, fractions 2/7, 4/7, 6/7,
        // so at 85.714 s, 171.429 s and 257.143 s.
        let update = tracker.fix(at(350), altitude: nil, horizontalAccuracy: 5, time: 300)
        #expect(update.photoPoints.map(\.index) == [1, 2, 3])
        #expect(update.photoPoints.map(\.distance) == [100, 200, 300])
        for (offset, photo) in update.photoPoints.enumerated() {
            let fraction = Double(offset + 1) * 2 / 7
            #expect(near(photo.time, 300 * fraction))
            #expect(Geodesy.distance(photo.coordinate, at(Double(offset + 1) * 100)) < 0.001)
        }
        #expect(tracker.photoPointsReached == 3)
        // Exactly 400 m counts (the epsilon): one more, index 4.
        let next = tracker.fix(at(400), altitude: nil, horizontalAccuracy: 5, time: 340)
        #expect(next.photoPoints.map(\.index) == [4])
    }

    @Test("photoEvery of 50 m gives twice as many photo points; 0 gives none")
    func photoEverySetting() {
        var every50 = RouteTracker(settings: .init(photoEvery: 50))
        _ = every50.fix(at(0), altitude: nil, horizontalAccuracy: nil, time: 0)
        #expect(every50.fix(at(120), altitude: nil, horizontalAccuracy: nil, time: 100).photoPoints.map(\.distance) == [50, 100])
        var none = RouteTracker(settings: .init(photoEvery: 0))
        _ = none.fix(at(0), altitude: nil, horizontalAccuracy: nil, time: 0)
        #expect(none.fix(at(120), altitude: nil, horizontalAccuracy: nil, time: 100).photoPoints.isEmpty)
    }

    @Test("dead-reckoned positions before any fix are rejected: there is nothing to place them from")
    func noFixYet() {
        var tracker = RouteTracker()
        #expect(tracker.deadReckoned(north: 10, east: 0, time: 0).rejection == .noFixYet)
        #expect(tracker.deadReckoned(north: .nan, east: 0, time: 0).rejection == .invalidCoordinate)
    }

    @Test("a GPS gap is filled by dead reckoning from the last good fix; a returning fix takes over again")
    func gapFilledByDeadReckoning() throws {
        var tracker = RouteTracker()
        // The position service's origin is somewhere else: its reading at the fix is (500 N, 200 E).
        #expect(tracker.deadReckoned(north: 500, east: 200, time: -1).rejection == .noFixYet)
        _ = tracker.fix(base, altitude: 34, horizontalAccuracy: 5, time: 0)
        // The fix is fresh (5 s ≤ 10 s): GPS is better, no point and no rejection.
        #expect(tracker.deadReckoned(north: 507, east: 200, time: 5) == RouteTracker.Update())
        // 20 s after the fix: 28 m north of the fix, carrying its altitude.
        let first = tracker.deadReckoned(north: 528, east: 200, time: 20)
        let point = try #require(first.points.first)
        #expect(point.source == .deadReckoning)
        #expect(point.elevation == 34)
        #expect(point.time == 20)
        #expect(Geodesy.distance(point.coordinate, at(28)) < 0.001)
        #expect(near(tracker.distance, 28))
        // 14 m further north and 3 m east.
        let second = tracker.deadReckoned(north: 542, east: 203, time: 30)
        #expect(Geodesy.distance(try #require(second.points.first).coordinate, at(42, east: 3)) < 0.001)
        // GPS is back: a normal point, and dead reckoning is ignored again while the fix is fresh.
        let fix = tracker.fix(at(56), altitude: 35, horizontalAccuracy: 5, time: 40)
        #expect(fix.points.first?.source == .gps)
        #expect(tracker.deadReckoned(north: 556, east: 200, time: 45) == RouteTracker.Update())
        // After the new fix times out, dead reckoning continues from it (the reference is the reading at t = 30).
        let later = tracker.deadReckoned(north: 552, east: 203, time: 51)
        #expect(Geodesy.distance(try #require(later.points.first).coordinate, at(66)) < 0.001)
        #expect(later.points.first?.elevation == 35)
    }

    @Test("without a reading at the fix, the first reading after it becomes the reference (no point)")
    func referenceFromFirstReading() throws {
        var tracker = RouteTracker()
        _ = tracker.fix(base, altitude: nil, horizontalAccuracy: 5, time: 0)
        #expect(tracker.deadReckoned(north: 3, east: 0, time: 2) == RouteTracker.Update())
        #expect(tracker.deadReckoned(north: 9, east: 0, time: 8) == RouteTracker.Update())
        let update = tracker.deadReckoned(north: 21, east: 0, time: 16)
        // 21 − 3 = 18 m north of the fix.
        #expect(Geodesy.distance(try #require(update.points.first).coordinate, at(18)) < 0.001)
        #expect(update.points.first?.elevation == nil)
    }

    @Test("a position reset (a jump back to 0,0) re-anchors at the last point instead of jumping")
    func resetReanchors() throws {
        var tracker = RouteTracker()
        _ = tracker.deadReckoned(north: 500, east: 200, time: -1)
        _ = tracker.fix(base, altitude: 34, horizontalAccuracy: 5, time: 0)
        _ = tracker.deadReckoned(north: 528, east: 200, time: 20)
        #expect(near(tracker.distance, 28))
        // The service restarted: (0, 0) would be 538 m away after 5 s. Not a point, not a rejection.
        #expect(tracker.deadReckoned(north: 0, east: 0, time: 25) == RouteTracker.Update())
        #expect(near(tracker.distance, 28))
        // The new readings continue from the last point (28 m north).
        let update = tracker.deadReckoned(north: 14, east: 0, time: 35)
        #expect(Geodesy.distance(try #require(update.points.first).coordinate, at(42)) < 0.001)
        #expect(near(tracker.distance, 42))
    }

    @Test("an out-of-order dead-reckoned position is rejected")
    func deadReckonedOutOfOrder() {
        var tracker = RouteTracker()
        _ = tracker.deadReckoned(north: 0, east: 0, time: 0)
        _ = tracker.fix(base, altitude: nil, horizontalAccuracy: 5, time: 0)
        _ = tracker.deadReckoned(north: 20, east: 0, time: 30)
        #expect(tracker.deadReckoned(north: 30, east: 0, time: 25).rejection == .outOfOrder)
    }

    @Test("resuming after a restart continues the distance and the photo index")
    func resume() throws {
        let stored = RoutePoint(time: 1000, coordinate: at(250), elevation: 30, source: .gps, distance: 250)
        var tracker = RouteTracker(resuming: stored, photoPointsReached: 2)
        #expect(tracker.distance == 250)
        #expect(tracker.last == stored)
        // No anchor yet after a restart.
        #expect(tracker.deadReckoned(north: 0, east: 0, time: 1001).rejection == .noFixYet)
        #expect(tracker.fix(at(260), altitude: nil, horizontalAccuracy: 5, time: 999).rejection == .outOfOrder)
        // 60 m more: 310 m, photo point 3 at 300 m, 50/60 of the way, at t = 1000 + 10 × 5/6 = 1008.333 s.
        let update = tracker.fix(at(310), altitude: nil, horizontalAccuracy: 5, time: 1010)
        #expect(near(tracker.distance, 310))
        let photo = try #require(update.photoPoints.first)
        #expect(update.photoPoints.count == 1)
        #expect(photo.index == 3)
        #expect(photo.distance == 300)
        #expect(near(photo.time, 1000 + 10.0 * 5 / 6))
        #expect(tracker.photoPointsReached == 3)
    }

    @Test("resuming without a stored point starts at distance 0")
    func resumeEmpty() {
        var tracker = RouteTracker(resuming: nil, photoPointsReached: 0)
        #expect(tracker.fix(base, altitude: nil, horizontalAccuracy: nil, time: 5).points.first?.distance == 0)
    }

    @Test("a route across the antimeridian measures the short way and interpolates a valid photo point")
    func antimeridianRoute() throws {
        var tracker = RouteTracker()
        _ = tracker.fix(GeoCoordinate(latitude: 0, longitude: 179.9995), altitude: nil, horizontalAccuracy: 5, time: 0)
        // 0.001° on the equator is 111.195 m; 100 m is 0.89932 of the way: 179.9995 + 0.00089932 = 180.00039932,
        // that is -179.99960068.
        let update = tracker.fix(GeoCoordinate(latitude: 0, longitude: -179.9995), altitude: nil, horizontalAccuracy: 5, time: 100)
        #expect(near(tracker.distance, 111.195, 1e-3))
        let photo = try #require(update.photoPoints.first)
        #expect(photo.coordinate.isValid)
        #expect(near(photo.coordinate.longitude, -179.999_600_68, 1e-7))
    }
}
