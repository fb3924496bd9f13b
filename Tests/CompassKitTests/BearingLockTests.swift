import CompassKit
import Testing

@Suite struct BearingLockTests {
    @Test func deviationIsSignedAndWraps() {
        var lock = BearingLock()
        #expect(!lock.isLocked)
        #expect(lock.deviation(heading: 10) == nil)
        #expect(!lock.isExceeded(heading: 10))
        lock.lock(at: 350)
        #expect(lock.threshold == 10)
        #expect(lock.deviation(heading: 10) == 20)
        #expect(lock.deviation(heading: 340) == -10)
        #expect(lock.isExceeded(heading: 10))
        #expect(!lock.isExceeded(heading: 340))
        #expect(lock.isExceeded(heading: 339.9))
        #expect(lock.deviation(heading: 170) == 180)
        lock.lock(at: -45, threshold: 5)
        #expect(lock.bearing == 315)
        #expect(lock.isExceeded(heading: 321))
        lock.unlock()
        #expect(!lock.isLocked)
    }
}
