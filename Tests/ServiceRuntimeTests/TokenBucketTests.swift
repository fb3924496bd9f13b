import ServiceRuntime
import Testing

@Suite("TokenBucket: spacing out calls to rate-limited services and error reports")
struct TokenBucketTests {
    @Test("a bucket starts full, then says how long until the next token")
    func basics() {
        var bucket = TokenBucket(capacity: 2, perSecond: 0.5, now: 100)
        #expect(bucket.take(now: 100) == 0)
        #expect(bucket.take(now: 100) == 0)
        // Empty: one token takes 1 / 0.5 = 2 s.
        #expect(bucket.take(now: 100) == 2)
        // Asking again does not take anything: after 1 s half a token is there, 1 s to go.
        #expect(bucket.take(now: 101) == 1)
        #expect(bucket.take(now: 102) == 0)
        #expect(bucket.take(now: 102) == 2)
        // A long pause refills only up to the capacity.
        #expect(bucket.take(now: 10_000) == 0)
        #expect(bucket.take(now: 10_000) == 0)
        #expect(bucket.take(now: 10_000) == 2)
    }

    @Test("a bucket that never refills says infinity once empty")
    func noRefill() {
        var bucket = TokenBucket(capacity: 1, perSecond: 0, now: 0)
        #expect(bucket.take(now: 0) == 0)
        #expect(bucket.take(now: 1_000_000) == .infinity)
    }

    @Test("a clock that goes back counts as the last call's time")
    func clockBack() {
        var bucket = TokenBucket(capacity: 1, perSecond: 1, now: 100)
        #expect(bucket.take(now: 100) == 0)
        #expect(bucket.take(now: 50) == 1)
        #expect(bucket.take(now: 101) == 0)
    }

    @Test("perHour: burst calls/60 between 1 and 60, the rest spread over the hour")
    func perHour() {
        // 3 600 calls: burst 60, (3 600 − 60) / 3 600 = 0.98333 per second.
        let busy = TokenBucket.perHour(3600, now: 0)
        #expect(busy.capacity == 60)
        #expect(abs(busy.perSecond - 3540.0 / 3600) < 1e-12)
        // 100 calls: burst 1, 99 / 3 600 per second.
        let light = TokenBucket.perHour(100, now: 0)
        #expect(light.capacity == 1)
        #expect(abs(light.perSecond - 99.0 / 3600) < 1e-12)
        // 10 000 calls: burst capped at 60.
        #expect(TokenBucket.perHour(10_000, now: 0).capacity == 60)
        #expect(TokenBucket.perHour(1, now: 0).capacity == 1)
        #expect(TokenBucket.perHour(1, now: 0).perSecond > 0)
    }

    /// A greedy caller: takes whenever it can and otherwise sleeps exactly as long as it is told.
    func greedyTakes(calls: Int, hours: Double, start: Double) -> [Double] {
        var bucket = TokenBucket.perHour(calls, now: start)
        var now = start
        var takes: [Double] = []
        var loops = 0
        while now < start + hours * 3600, loops < 10_000_000 {
            loops += 1
            let wait = bucket.take(now: now)
            if wait == 0 { takes.append(now) } else { now += wait }
        }
        return takes
    }

    @Test(
        "no window of 3 600 s sees more than the hourly calls, and a greedy caller gets close to them",
        arguments: [1, 2, 30, 100, 119, 120, 500, 3600, 3601, 10_000])
    func slidingWindow(calls: Int) {
        let hours = 5.0
        let takes = greedyTakes(calls: calls, hours: hours, start: 1_700_000_000)
        // calls + 1 takes must span more than 3 600 s: then no window [t, t + 3 600] holds more than `calls`.
        var worst = Double.infinity
        for index in takes.indices.dropLast(calls) {
            worst = min(worst, takes[index + calls] - takes[index])
        }
        #expect(worst > 3600, "calls \(calls): \(calls + 1) takes within \(worst) s")
        // The greedy caller is not starved: the burst plus five hours of refill, less one for rounding.
        let expected = calls <= 1 ? 5 : Int(Double(max(1, min(60, calls / 60))) + Double(calls - max(1, min(60, calls / 60))) * hours) - 1
        #expect(takes.count >= expected, "calls \(calls): only \(takes.count) takes in \(hours) h")
    }

    @Test("a greedy caller after an idle hour gets the burst again, still within the hourly limit")
    func idleThenBurst() {
        var bucket = TokenBucket.perHour(600, now: 0)
        var takes: [Double] = []
        var now = 0.0
        // Greedy for half an hour, idle for an hour, greedy for two hours.
        for (from, to) in [(0.0, 1800.0), (5400.0, 12_600.0)] {
            now = max(now, from)
            while now < to {
                let wait = bucket.take(now: now)
                if wait == 0 { takes.append(now) } else { now += wait }
            }
        }
        for index in takes.indices.dropLast(600) {
            #expect(takes[index + 600] - takes[index] > 3600)
        }
        // The burst is 10: ten takes at 5 400 s.
        #expect(takes.filter { $0 == 5400 }.count == 10)
    }
}
