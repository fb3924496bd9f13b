import JournalKit
import Testing

@Suite("RetryPolicy and RetryAfter: when to try a failed lookup again")
struct RetryPolicyTests {
    @Test("doubling from the base, capped at the maximum")
    func doubling() {
        let policy = RetryPolicy()
        #expect(policy.base == 15)
        #expect(policy.maximum == 900)
        // 15, 30, 60, 120, 240, 480, then 960 capped to 900.
        #expect((1...7).map { policy.delay(afterAttempts: $0, retryAfter: nil) } == [15, 30, 60, 120, 240, 480, 900])
        #expect(policy.delay(afterAttempts: 0, retryAfter: nil) == 15)
        #expect(policy.delay(afterAttempts: -3, retryAfter: nil) == 15)
        #expect(policy.delay(afterAttempts: 5000, retryAfter: nil) == 900)
        #expect(policy.delay(afterAttempts: Int.max, retryAfter: nil) == 900)
        #expect(RetryPolicy(base: 1, maximum: 10).delay(afterAttempts: 4, retryAfter: nil) == 8)
    }

    @Test("at least Retry-After, itself capped at an hour")
    func retryAfter() {
        let policy = RetryPolicy()
        #expect(policy.delay(afterAttempts: 1, retryAfter: 120) == 120)
        #expect(policy.delay(afterAttempts: 3, retryAfter: 5) == 60)
        #expect(policy.delay(afterAttempts: 1, retryAfter: 7200) == 3600)
        #expect(policy.delay(afterAttempts: 1, retryAfter: 0) == 15)
        #expect(policy.delay(afterAttempts: 1, retryAfter: -10) == 15)
        #expect(policy.delay(afterAttempts: 1, retryAfter: .nan) == 15)
    }

    @Test("Retry-After as delta-seconds")
    func deltaSeconds() {
        #expect(RetryAfter.seconds("120", now: 1000) == 120)
        #expect(RetryAfter.seconds(" 0 ", now: 1000) == 0)
        #expect(RetryAfter.seconds("-5", now: 1000) == nil)
        #expect(RetryAfter.seconds("1.5", now: 1000) == nil)
        #expect(RetryAfter.seconds("+5", now: 1000) == nil)
        #expect(RetryAfter.seconds("", now: 1000) == nil)
        #expect(RetryAfter.seconds("soon", now: 1000) == nil)
    }

    @Test("Retry-After as an IMF-fixdate, in seconds from now and never negative")
    func httpDate() {
        // Wed, 21 Oct 2015 07:28:00 GMT = 1 445 412 480 s.
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:00 GMT", now: 1_445_412_420) == 60)
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:00 GMT", now: 1_445_412_480.5) == 0)
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:00 GMT", now: 1_500_000_000) == 0)
        // 29 February 2024 exists: 1 709 164 800 s at midnight.
        #expect(RetryAfter.seconds("Thu, 29 Feb 2024 00:00:00 GMT", now: 1_709_164_700) == 100)
    }

    @Test("other date forms and impossible dates are not understood")
    func badDates() {
        #expect(RetryAfter.seconds("Wednesday, 21-Oct-15 07:28:00 GMT", now: 0) == nil)
        #expect(RetryAfter.seconds("Wed Oct 21 07:28:00 2015", now: 0) == nil)
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:00 UTC", now: 0) == nil)
        #expect(RetryAfter.seconds("Wed, 31 Feb 2015 07:28:00 GMT", now: 0) == nil)
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 25:28:00 GMT", now: 0) == nil)
        #expect(RetryAfter.seconds("Wed, 21 oct 2015 07:28:00 GMT", now: 0) == nil)
        #expect(RetryAfter.seconds("Wed, 1 Oct 2015 07:28:00 GMT", now: 0) == nil)
    }
}
