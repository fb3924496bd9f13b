import ActivityKit
import Bus
import BusTesting
import Configuration
import Foundation
import ServiceRuntime
import StepCompassTesting
import Testing

@Suite("Activity: at most --max-devices devices in memory, the idle evicted first, their history kept")
struct ActivityDeviceLimitTests {
    @Test("a fourth device evicts the one idle a minute, a fifth (all active) is rejected; an evicted device's steps count on")
    func evictsIdleThenRefuses() async throws {
        let fixture = try await ActivityFixture()
        let clock = ManualClock()
        try await fixture.start(["max.devices": 3], clock: ServiceClock(clock))
        var counts: [String: Int] = [:]
        var minute = 0
        /// Sends 100 more steps for `device` (a minute later than the last message) and waits for its `today`.
        func step(_ device: String, expecting today: Int? = nil) async throws {
            let total = counts[device, default: 0] + 100
            counts[device] = total
            minute += 1
            let time = String(format: "2026-07-01T10:%02d:00.000Z", minute)
            try await fixture.publish("stepcompass/\(device)/steps", #"{"steps": \#(total), "timestamp": "\#(time)"}"#)
            let expected = today ?? total
            #expect(try await fixture.activity(device) { $0.today == Int64(expected) } != nil, "\(device): today \(expected)")
        }
        for device in ["a", "b", "c"] { try await step(device) }
        clock.advance(by: .seconds(30))
        for device in ["b", "c"] { try await step(device) }
        clock.advance(by: .seconds(30))
        // "a" has been idle 60 s: "d" takes its place.
        try await step("d")
        // "b" and "c" were used 30 s ago, "d" now: "e" is refused.
        try await fixture.publish("stepcompass/e/steps", #"{"steps": 5, "timestamp": "2026-07-01T11:00:00.000Z"}"#)
        let report = try #require(await fixture.errors.next(timeout: .seconds(30)))
        #expect(report.text.contains("tracking 3 devices, the most --max-devices allows; device 'e' is not tracked until one goes idle"))
        // The three tracked keep working.
        for device in ["b", "c", "d"] { try await step(device) }
        // "a" comes back a minute later, in the place of "b": its count goes on from its stored tally, 100 → 200.
        clock.advance(by: .seconds(60))
        try await step("a", expecting: 200)
        #expect(await fixture.errors.collect(1, timeout: .milliseconds(100)).isEmpty)
        try await fixture.stop()
    }
}
