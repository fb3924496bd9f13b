import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import ServiceRuntime
import StepCompassTesting
import Testing

@Suite("Compass: at most --max-devices devices, the idle evicted first")
struct CompassDeviceLimitTests {
    static let configuration: CompassConfiguration = {
        var configuration = CompassConfiguration(smoothing: 0.1, maxRate: 1_000, deadBand: 0.5, staleAfter: 5)
        configuration.maxDevices = 3
        return configuration
    }()

    /// The next heading of `device` on `feed` whose status is `status`, or nil after 30 s.
    static func heading(_ device: String, _ status: HeadingStatus, on feed: BusSubscription) async throws -> HeadingMessage? {
        let deadline = ContinuousClock.now + .seconds(30)
        while let message = await feed.next(before: deadline) {
            guard message.topic == "stepcompass/\(device)/heading", !message.payload.isEmpty else { continue }
            let heading = try JSONDecoder().decode(HeadingMessage.self, from: message.payload)
            if heading.headingStatus == status { return heading }
        }
        return nil
    }

    @Test("with three devices tracked, a fourth takes the place of the one idle a minute; a fifth, all active, is rejected")
    func evictsIdleThenRefuses() async throws {
        let harness = CompassTestHarness()
        let clock = ManualClock()
        try await harness.withService(Self.configuration, clock: ServiceClock(clock, epoch: CompassTestHarness.start)) { harness in
            let headings = try await harness.device.subscribe(to: TopicFilter("stepcompass/+/heading"), qos: .atMostOnce)
            let errors = try await harness.device.subscribe(to: TopicFilter(harness.topics.errors("compass")), qos: .atMostOnce)
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            // Each sample of a device turns it 10° more, so every sample publishes a heading.
            var turns: [String: Double] = [:]
            func sample(_ device: String) async throws {
                let heading = turns[device, default: 0] + 10
                turns[device] = heading
                let reading = motion.reading(heading: heading, pitch: 0, roll: 0)
                let date = CompassTestHarness.start.addingTimeInterval(clock.now.offset.inSeconds + heading / 1_000)
                try await harness.sendSample(device, at: date, accel: reading.accel, mag: reading.mag)
            }
            func advance(_ seconds: Int, staling devices: [String]) async throws {
                await clock.waitForSleepers()
                clock.advance(by: .seconds(seconds))
                for device in devices { #expect(try await Self.heading(device, .stale, on: headings) != nil) }
            }
            for device in ["a", "b", "c"] {
                try await sample(device)
                #expect(try await Self.heading(device, .ok, on: headings) != nil, "\(device) is tracked")
            }
            try await advance(30, staling: ["a", "b", "c"])
            for device in ["b", "c"] {
                try await sample(device)
                #expect(try await Self.heading(device, .ok, on: headings) != nil)
            }
            try await advance(30, staling: ["b", "c"])
            // "a" has been idle 60 s: "d" takes its place.
            try await sample("d")
            #expect(try await Self.heading("d", .ok, on: headings) != nil, "d evicts a")
            // "b" and "c" were used 30 s ago, "d" now: "e" is refused.
            try await sample("e")
            let report = try #require(await errors.next(timeout: .seconds(30)))
            #expect(report.topic == "stepcompass/errors/compass")
            #expect(report.text.contains("tracking 3 devices, the most --max-devices allows; device 'e' is not tracked until one goes idle"))
            #expect(report.text.contains("stepcompass/e/imu"))
            // The three tracked keep working.
            for device in ["b", "c", "d"] {
                try await sample(device)
                #expect(try await Self.heading(device, .ok, on: headings) != nil, "\(device) still works")
            }
            // Nothing else was rejected.
            #expect(await errors.collect(1, timeout: .milliseconds(100)).isEmpty)
        }
    }
}
