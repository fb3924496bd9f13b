import Testing
@testable import MarkerService

@Suite struct RetryPolicyTests {
    @Test func delaysDoubleUpToTheMaximumWithJitter() {
        let policy = RetryPolicy(base: .seconds(1), maximum: .seconds(300))
        #expect(policy.ceilingDelay(afterFailures: 1) == .seconds(1))
        #expect(policy.ceilingDelay(afterFailures: 4) == .seconds(8))
        #expect(policy.ceilingDelay(afterFailures: 20) == .seconds(300))
        var generator = SystemRandomNumberGenerator()
        for failures in 1...12 {
            let delay = policy.delay(afterFailures: failures, using: &generator)
            let ceiling = policy.ceilingDelay(afterFailures: failures)
            #expect(delay <= ceiling && delay >= ceiling / 2)
        }
    }
}
