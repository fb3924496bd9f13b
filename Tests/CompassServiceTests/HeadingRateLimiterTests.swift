import CompassService
import Testing

@Suite("HeadingRateLimiter")
struct HeadingRateLimiterTests {
    @Test("the first change publishes, changes inside the window are held until it ends")
    func holdsInsideWindow() {
        var limiter = HeadingRateLimiter(interval: 0.1)
        #expect(limiter.offer(at: 10.0, changed: true) == .publish)
        #expect(limiter.offer(at: 10.02, changed: true) == .hold(until: 10.1))
        #expect(limiter.deadline == 10.1)
        let expired1 = limiter.expire(at: 10.09)
        #expect(!expired1)
        let expired2 = limiter.expire(at: 10.1)
        #expect(expired2)
        #expect(limiter.deadline == nil)
        // The trailing publication started a window at its end.
        #expect(limiter.offer(at: 10.15, changed: true) == .hold(until: 10.2))
        #expect(limiter.offer(at: 10.21, changed: true) == .publish)
        // A sample a little older than the window start (the timer's estimate ran ahead) is held.
        let expiredLate = limiter.expire(at: 10.31)
        #expect(!expiredLate)
        #expect(limiter.offer(at: 10.2, changed: true) == .hold(until: 10.31))
    }

    @Test("a state back within the dead band drops the held change")
    func unchangedDropsHold() {
        var limiter = HeadingRateLimiter(interval: 0.5)
        #expect(limiter.offer(at: 0, changed: true) == .publish)
        #expect(limiter.offer(at: 0.1, changed: true) == .hold(until: 0.5))
        #expect(limiter.offer(at: 0.2, changed: false) == .idle)
        #expect(!limiter.isHolding)
        let expired3 = limiter.expire(at: 1)
        #expect(!expired3)
    }

    @Test("never more than one publication per window, whatever the offers")
    func rateBound() {
        var limiter = HeadingRateLimiter(interval: 0.1)
        var publications: [Double] = []
        var time = 0.0
        while time < 10 {
            if limiter.offer(at: time, changed: true) == .publish { publications.append(time) }
            if limiter.expire(at: time + 0.003) { publications.append(limiter.windowStart!) }
            time += 0.007
        }
        for (earlier, later) in zip(publications, publications.dropFirst()) {
            #expect(later - earlier >= 0.1 - 1e-9)
        }
        #expect(publications.count >= 95)
        #expect(publications.count <= 101)
    }

    @Test("a clock step back opens a new window, and cancel drops a hold")
    func clockStepAndCancel() {
        var limiter = HeadingRateLimiter(interval: 1)
        #expect(limiter.offer(at: 100, changed: true) == .publish)
        #expect(limiter.offer(at: 99.5, changed: true) == .hold(until: 101))
        #expect(limiter.offer(at: 50, changed: true) == .publish)
        #expect(limiter.offer(at: 50.5, changed: true) == .hold(until: 51))
        limiter.cancel()
        let expired4 = limiter.expire(at: 60)
        #expect(!expired4)
        limiter.recordPublication(at: 70)
        #expect(limiter.offer(at: 70.5, changed: true) == .hold(until: 71))
    }
}
