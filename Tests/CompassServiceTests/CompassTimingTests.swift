import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import ServiceRuntime
import StepCompassTesting
import Testing

@Suite("Compass rate limit, trailing publication and staleness")
struct CompassTimingTests {
    @Test("at most max-rate headings per second of sample time; the held change goes out when its window ends")
    func rateLimitAndTrailingPublish() async throws {
        let harness = CompassTestHarness()
        let configuration = CompassConfiguration(smoothing: 0, maxRate: 5, deadBand: 0, staleAfter: 30)
        try await harness.withService(configuration) { harness in
            let watcher = try await harness.device.subscribe(
                to: try TopicFilter(harness.topics.device("rate", .heading)), qos: .atMostOnce)
            try await harness.locate("rate")
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            // 1 s of samples at 50 Hz, turning 30°/s: far more changes than the limit lets through.
            var lastHeading = 0.0
            for index in 0..<50 {
                lastHeading = 10 + Double(index) * 0.6
                let reading = motion.reading(heading: lastHeading, pitch: 0, roll: 0)
                try await harness.sendSample(
                    "rate", at: CompassTestHarness.start.addingTimeInterval(Double(index) * 0.02),
                    accel: reading.accel, mag: reading.mag)
            }
            // No further sample: the timer must publish the held last change.
            let final = lastHeading
            let trailing = try await harness.waitForHeading("rate", timeout: 60) {
                abs(Angle.difference(from: final, to: $0.heading ?? .nan)) < 0.05
            }
            #expect(trailing != nil)
            let messages = await watcher.collect(100, timeout: .milliseconds(300))
            let times = messages.compactMap { message -> Double? in
                guard let heading = try? JSONDecoder().decode(HeadingMessage.self, from: message.payload) else { return nil }
                return heading.timestamp.flatMap(Timestamp.parse)?.timeIntervalSince(CompassTestHarness.start)
            }
            // 0.98 s of samples at 5 per second: windows start at 0, 0.2, ..., 0.8, plus the trailing one.
            #expect(times.count >= 5)
            #expect(times.count <= 6)
            // One publication per window, plus at most one held change published when it ended
            // (stamped with its sample's time, inside the window): never three in one window.
            for (earlier, later) in zip(times, times.dropFirst(2)) {
                #expect(later - earlier >= 0.2 - 0.001)
            }
        }
    }

    @Test("changes inside the dead band publish nothing")
    func deadBand() async throws {
        let harness = CompassTestHarness()
        let configuration = CompassConfiguration(smoothing: 0, maxRate: 1_000, deadBand: 0.5, staleAfter: 30)
        try await harness.withService(configuration) { harness in
            let watcher = try await harness.device.subscribe(
                to: try TopicFilter(harness.topics.device("band", .heading)), qos: .atMostOnce)
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            for index in 0..<20 {
                let reading = motion.reading(heading: 50 + (index.isMultiple(of: 2) ? 0.2 : -0.2), pitch: 0, roll: 0)
                try await harness.sendSample(
                    "band", at: CompassTestHarness.start.addingTimeInterval(Double(index) * 0.02),
                    accel: reading.accel, mag: reading.mag)
            }
            let turned = motion.reading(heading: 52, pitch: 0, roll: 0)
            try await harness.sendSample(
                "band", at: CompassTestHarness.start.addingTimeInterval(0.5), accel: turned.accel, mag: turned.mag)
            let messages = await watcher.collect(2, timeout: .seconds(2))
            #expect(messages.count == 2)
            let more = await watcher.collect(1, timeout: .milliseconds(200))
            #expect(more.isEmpty)
        }
    }

    @Test("no sample for stale-after seconds publishes stale (on the service's clock, advanced by hand); a new sample is ok again")
    func stale() async throws {
        let harness = CompassTestHarness()
        let configuration = CompassConfiguration(smoothing: 0.1, maxRate: 1_000, deadBand: 0.5, staleAfter: 30)
        let clock = ManualClock()
        try await harness.withService(configuration, clock: ServiceClock(clock, epoch: CompassTestHarness.start)) { harness in
            let watcher = try await harness.device.subscribe(
                to: try TopicFilter(harness.topics.device("old", .heading)), qos: .atMostOnce)
            let reading = DeviceMotion(field: CompassTestHarness.boulderField()).reading(heading: 70, pitch: 0, roll: 0)
            try await harness.sendSample("old", at: CompassTestHarness.start, accel: reading.accel, mag: reading.mag)
            let fresh = try await harness.waitForHeading("old") { $0.headingStatus == .ok }
            #expect(fresh != nil)
            _ = await watcher.collect(1, timeout: .seconds(10))
            // 29.9 s of the service's time without a sample: not yet stale.
            await clock.waitForSleepers()
            clock.advance(by: .milliseconds(29_900))
            await clock.waitForSleepers()
            #expect(await watcher.collect(1, timeout: .milliseconds(200)).isEmpty)
            clock.advance(by: .milliseconds(200))
            let stale = try await harness.waitForHeading("old", timeout: 60) { $0.headingStatus == .stale }
            // The last values stay, marked stale.
            #expect(stale?.magneticHeading == fresh?.magneticHeading)
            try await harness.sendSample(
                "old", at: CompassTestHarness.start.addingTimeInterval(1), accel: reading.accel, mag: reading.mag)
            try await harness.waitForHeading("old") { $0.headingStatus == .ok }
        }
    }

    @Test("stale and back within the dead band, the heading published is the one before (the reference), not the filter's")
    func staleAndBackKeepsTheReference() async throws {
        let harness = CompassTestHarness()
        let configuration = CompassConfiguration(smoothing: 0, maxRate: 1_000, deadBand: 0.5, staleAfter: 30)
        let clock = ManualClock()
        try await harness.withService(configuration, clock: ServiceClock(clock, epoch: CompassTestHarness.start)) { harness in
            try await harness.locate("walker")
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            let first = motion.reading(heading: 70, pitch: 0, roll: 0)
            try await harness.sendSample("walker", at: CompassTestHarness.start, accel: first.accel, mag: first.mag)
            let fresh = try #require(try await harness.waitForHeading("walker") { $0.headingStatus == .ok })
            // 0.2° off, inside the 0.5° dead band: the filter moves, the published heading does not.
            let near = motion.reading(heading: 70.2, pitch: 0, roll: 0)
            try await harness.sendSample("walker", at: CompassTestHarness.start.addingTimeInterval(1), accel: near.accel, mag: near.mag)
            try await harness.drain()
            #expect(harness.heading("walker")?.timestamp == fresh.timestamp)
            await clock.waitForSleepers()
            clock.advance(by: .seconds(31))
            // The status is news, the angle is not: stale, then ok again, both with the published angle.
            let stale = try #require(try await harness.waitForHeading("walker", timeout: 60) { $0.headingStatus == .stale })
            #expect(stale.heading == fresh.heading, "the stale message moved the heading inside the dead band")
            try await harness.sendSample("walker", at: CompassTestHarness.start.addingTimeInterval(33), accel: near.accel, mag: near.mag)
            let back = try #require(try await harness.waitForHeading("walker") { $0.headingStatus == .ok })
            #expect(back.heading == fresh.heading, "back from stale, the heading moved inside the dead band")
            #expect(back.trueHeading == fresh.trueHeading)
            // The magnetic angle follows from the held true one and the declination.
            #expect(abs((back.magneticHeading ?? .nan) - (fresh.magneticHeading ?? .nan)) < 1e-9)
            // Past the dead band, the new angle is published.
            let turned = motion.reading(heading: 71, pitch: 0, roll: 0)
            try await harness.sendSample(
                "walker", at: CompassTestHarness.start.addingTimeInterval(34), accel: turned.accel, mag: turned.mag)
            let moved = try await harness.waitForHeading("walker") { abs(($0.heading ?? .nan) - 71) < 0.05 }
            #expect(moved != nil)
        }
    }
}
