import JournalKit
import Testing

@Suite("AutoWalkDetector: walks start with steps after a rest and stop after a rest")
struct AutoWalkDetectorTests {
    @Test("the first steps ever seen start a walk; steps during a walk decide nothing")
    func firstSteps() {
        var detector = AutoWalkDetector()
        #expect(detector.rest == 300)
        #expect(detector.stepped(at: 1000, walking: false) == .start(at: 1000))
        #expect(detector.lastStep == 1000)
        #expect(detector.stepped(at: 1010, walking: true) == .none)
        #expect(detector.lastStep == 1010)
    }

    @Test("a rest of the full length stops the walk at the last step, not at the moment of checking")
    func stopAfterRest() {
        var detector = AutoWalkDetector(rest: 300)
        _ = detector.stepped(at: 1000, walking: false)
        _ = detector.stepped(at: 1100, walking: true)
        // 1 399 − 1 100 = 299 s: not yet. 1 400 − 1 100 = 300 s: stop at 1 100.
        #expect(detector.check(now: 1399, walkStarted: 1000) == .none)
        #expect(detector.check(now: 1400, walkStarted: 1000) == .stop(at: 1100))
        #expect(detector.check(now: 5000, walkStarted: 1000) == .stop(at: 1100))
    }

    @Test("no walk on: check decides nothing")
    func noWalk() {
        var detector = AutoWalkDetector()
        _ = detector.stepped(at: 0, walking: false)
        #expect(detector.check(now: 10_000, walkStarted: nil) == .none)
    }

    @Test("a walk started by hand after the last step counts its rest from its start")
    func manualStart() {
        var detector = AutoWalkDetector(rest: 300)
        _ = detector.stepped(at: 500, walking: false)
        // Started at 1 000 with no step since: since = max(500, 1 000) = 1 000.
        #expect(detector.check(now: 1299, walkStarted: 1000) == .none)
        #expect(detector.check(now: 1300, walkStarted: 1000) == .stop(at: 1000))
        // Never a step at all: the same.
        let fresh = AutoWalkDetector(rest: 60)
        #expect(fresh.check(now: 1060, walkStarted: 1000) == .stop(at: 1000))
    }

    @Test("after an automatic stop, steps after a rest start a new walk, steps without one do not")
    func restart() {
        var detector = AutoWalkDetector(rest: 300)
        _ = detector.stepped(at: 0, walking: false)
        _ = detector.stepped(at: 100, walking: true)
        #expect(detector.check(now: 400, walkStarted: 0) == .stop(at: 100))
        // Stopped by hand and still walking: 200 − 100 < 300, no new walk.
        #expect(detector.stepped(at: 200, walking: false) == .none)
        // 520 − 200 = 320 s of rest: a new walk.
        #expect(detector.stepped(at: 520, walking: false) == .start(at: 520))
    }

    @Test("a late step never moves the last step back")
    func lateStep() {
        var detector = AutoWalkDetector(rest: 300)
        _ = detector.stepped(at: 1000, walking: true)
        #expect(detector.stepped(at: 900, walking: true) == .none)
        #expect(detector.lastStep == 1000)
        #expect(detector.stepped(at: 950, walking: false) == .none)
        #expect(detector.lastStep == 1000)
    }
}
