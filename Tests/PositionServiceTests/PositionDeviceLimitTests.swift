import Bus
import BusTesting
import Foundation
import PositionService
import ServiceRuntime
import StepCompassTesting
import Testing

@Suite("Position: at most --max-devices devices, the idle evicted first")
struct PositionDeviceLimitTests {
    @Test("with three devices tracked, a fourth takes the place of the one idle a minute; a fifth, all active, is rejected")
    func evictsIdleThenRefuses() async throws {
        let fixture = try await InMemoryFixture()
        let clock = ManualClock()
        var configuration = PositionConfiguration()
        configuration.maxDevices = 3
        let service = try await RunningPositionService.start(
            on: fixture.serviceBus(), configuration: configuration, clock: ServiceClock(clock))
        let device = fixture.serviceBus(clientID: "device")
        var counts: [String: Int] = [:]
        /// Sends 5 more steps for `device` and waits for its position with the new total.
        func step(_ name: String) async throws {
            let total = counts[name, default: 0] + 5
            counts[name] = total
            try await device.publish("stepcompass/\(name)/steps", #"{"steps": \#(total)}"#)
            let deadline = ContinuousClock.now + .seconds(30)
            while let message = await fixture.positionFeed.next(before: deadline) {
                guard message.topic == "stepcompass/\(name)/position" else { continue }
                if try PositionMessage.decode(message).steps == total { return }
            }
            Issue.record("no position of \(name) with \(total) steps")
        }
        for name in ["a", "b", "c"] { try await step(name) }
        clock.advance(by: .seconds(30))
        for name in ["b", "c"] { try await step(name) }
        clock.advance(by: .seconds(30))
        // "a" has been idle 60 s: "d" takes its place.
        try await step("d")
        // "b" and "c" were used 30 s ago, "d" now: "e" is refused.
        try await device.publish("stepcompass/e/steps", #"{"steps": 5}"#)
        let report = try #require(await fixture.errors.next(timeout: .seconds(30)))
        let decoded = try JSONDecoder().decode(ErrorReportMessage.self, from: report.payload)
        #expect(decoded.topic == "stepcompass/e/steps")
        #expect(decoded.error == "tracking 3 devices, the most --max-devices allows; device 'e' is not tracked until one goes idle")
        // A bad message of a new device is reported for what is wrong with it, and takes no place in the table.
        try await device.publish("stepcompass/f/steps", #"{"steps": "many"}"#)
        let bad = try #require(await fixture.errors.next(timeout: .seconds(30)))
        let badReport = try JSONDecoder().decode(ErrorReportMessage.self, from: bad.payload)
        #expect(badReport.topic == "stepcompass/f/steps")
        #expect(!badReport.error.contains("--max-devices"), "\(badReport.error)")
        // The three tracked keep working.
        for name in ["b", "c", "d"] { try await step(name) }
        // "a" comes back after a minute more: it takes the place of "b" (the idlest), starting a new walk.
        clock.advance(by: .seconds(60))
        counts["a"] = 0
        try await step("a")
        #expect(await fixture.errors.collect(1, timeout: .milliseconds(100)).isEmpty)
        await service.stop()
    }
}
