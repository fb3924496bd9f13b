import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import ServiceRuntime
import Testing

/// A restarted service carries on with each device's bearing lock and north setting, read back from its own
/// retained `bearing-lock` and `heading` messages.
@Suite("Compass restart")
struct CompassRestartTests {
    static let configuration = CompassConfiguration(smoothing: 0, maxRate: 1_000, deadBand: 0.5, staleAfter: 30)

    /// Sends flat, undistorted samples at a heading and waits until they are handled.
    static func point(
        _ harness: CompassTestHarness, _ id: String, heading: Double, at date: Date
    ) async throws {
        let reading = DeviceMotion(field: CompassTestHarness.boulderField()).reading(heading: heading, pitch: 0, roll: 0)
        for index in 0..<5 {
            try await harness.sendSample(
                id, at: date.addingTimeInterval(Double(index) * 0.02), accel: reading.accel,
                mag: reading.mag)
        }
        try await harness.drain()
    }

    /// Runs a first service that publishes the walker's heading at `heading`, then replaces the retained heading with
    /// `edit`'s version of it (what a walking phone's run, or another writer, left on the broker).
    /// - Returns: The retained heading as sent.
    static func retainEdited(
        _ harness: CompassTestHarness, heading: Double, _ edit: (inout HeadingMessage) -> Void
    ) async throws -> HeadingMessage {
        try await harness.withService(configuration) { harness in
            try await harness.locate("walker")
            try await point(harness, "walker", heading: heading, at: CompassTestHarness.start)
        }
        var retained = try #require(harness.heading("walker"))
        edit(&retained)
        try await harness.send("walker", .heading, String(decoding: try JSONEncoder().encode(retained), as: UTF8.self), retain: true)
        return retained
    }

    /// Runs a second service (another client id: only the retained messages connect the two) whose first samples point
    /// the walker at `heading`, 2 s after the first run's, then `body`.
    static func restarted(
        _ harness: CompassTestHarness, pointing heading: Double, _ body: @Sendable (CompassTestHarness) async throws -> Void
    ) async throws {
        try await harness.withService(configuration, clientID: "compass-2") { harness in
            try await harness.locate("walker")
            try await point(harness, "walker", heading: heading, at: CompassTestHarness.start.addingTimeInterval(2))
            try await body(harness)
        }
    }

    @Test("the bearing lock and the magnetic-north setting survive a restart")
    func lockAndNorthSurvive() async throws {
        let harness = CompassTestHarness()
        let start = CompassTestHarness.start
        try await harness.withService(Self.configuration) { harness in
            try await harness.locate("walker")
            try await Self.point(harness, "walker", heading: 100, at: start)
            try await harness.send("walker", .commandBearingLock, #"{"action":"lock","bearing":45,"threshold":15}"#)
            try await harness.send("walker", .commandSettings, #"{"north":"magnetic"}"#)
            try await Self.point(harness, "walker", heading: 100, at: start.addingTimeInterval(1))
            let heading = try #require(harness.heading("walker"))
            #expect(heading.northReference == .magnetic)
            #expect(heading.trueHeading != nil)
            let lock = try #require(harness.retained(BearingLockMessage.self, "walker", .bearingLock))
            #expect(lock.locked && lock.bearing == 45 && lock.threshold == 15)
        }
        // A new instance on the same broker: only the retained messages connect the two.
        try await harness.withService(Self.configuration, clientID: "compass-2") { harness in
            try await harness.locate("walker")
            // The true heading 200°; magnetic is 200° − declination.
            try await Self.point(harness, "walker", heading: 200, at: start.addingTimeInterval(2))
            let heading = try #require(harness.heading("walker"))
            #expect(heading.northReference == .magnetic, "the north setting was restored")
            let declination = try #require(heading.declination)
            #expect(abs(Angle.difference(from: heading.magneticHeading ?? .nan, to: heading.heading ?? .nan)) < 1e-9)
            #expect(abs(Angle.difference(from: 200 - declination, to: heading.heading ?? .nan)) < 0.1)
            let lock = try #require(harness.retained(BearingLockMessage.self, "walker", .bearingLock))
            #expect(lock.locked)
            #expect(lock.bearing == 45)
            #expect(lock.threshold == 15)
            // The deviation is the new service's: from 45° to the new magnetic heading.
            #expect(abs((lock.deviation ?? .nan) - Angle.difference(from: 45, to: 200 - declination)) < 0.1)
            #expect(lock.exceeded == true)

            // The restored lock works as any other: unlocking clears it.
            try await harness.send("walker", .commandBearingLock, #"{"action":"unlock"}"#)
            let unlocked = try await harness.waitFor {
                harness.retained(BearingLockMessage.self, "walker", .bearingLock).flatMap { $0.locked ? nil : $0 }
            }
            #expect(unlocked?.bearing == nil)
        }
    }

    @Test("a restarted service publishes a heading again only past the dead band of the retained one")
    func retainedHeadingIsTheReference() async throws {
        let harness = CompassTestHarness()
        let start = CompassTestHarness.start
        try await harness.withService(Self.configuration) { harness in
            try await harness.locate("walker")
            try await Self.point(harness, "walker", heading: 100, at: start)
            #expect(abs((harness.heading("walker")?.heading ?? .nan) - 100) < 0.05)
        }
        try await harness.withService(Self.configuration, clientID: "compass-2") { harness in
            try await harness.locate("walker")
            // 0.2° from the retained heading, inside the 0.5° dead band: the retained message stays.
            try await Self.point(harness, "walker", heading: 100.2, at: start.addingTimeInterval(2))
            let kept = try #require(harness.heading("walker"))
            #expect(abs((kept.heading ?? .nan) - 100) < 0.05, "a heading inside the dead band was published: \(kept.heading ?? .nan)")
            try await Self.point(harness, "walker", heading: 101, at: start.addingTimeInterval(3))
            #expect(abs((harness.heading("walker")?.heading ?? .nan) - 101) < 0.05)
        }
    }

    @Test("a retained walking direction is not taken as gone while the restarted service has none of its own yet")
    func retainedWalkingDirectionIsKept() async throws {
        let harness = CompassTestHarness()
        // The walk's retained heading, as a walking phone left it: with a walking direction.
        let retained = try await Self.retainEdited(harness, heading: 100) { heading in
            #expect(heading.walkingDirection == nil)
            heading.walkingDirection = 100
        }
        let stamp = retained.timestamp
        // A still phone, 0.2° off: no walking direction yet, inside the dead band, so nothing to publish.
        try await Self.restarted(harness, pointing: 100.2) { harness in
            try await harness.drain()
            let kept = try #require(harness.heading("walker"))
            #expect(kept.walkingDirection == 100, "the restarted service published a heading without the walking direction")
            #expect(kept.timestamp == stamp)
        }
    }

    @Test("while the restarted service has no walking direction of its own, a status change carries the retained one")
    func retainedWalkingDirectionStandsInStatusChanges() async throws {
        let harness = CompassTestHarness()
        let retainedHeading = try await Self.retainEdited(harness, heading: 100) { $0.walkingDirection = 100 }.heading
        try await Self.restarted(harness, pointing: 100.2) { harness in
            // Motion denied: the status is news; the angles are still the retained ones.
            try await harness.send("walker", .permissions, #"{"motion":"denied","location":"authorized"}"#, retain: true)
            let denied = try #require(try await harness.waitForHeading("walker") { $0.headingStatus == .noPermission })
            #expect(denied.walkingDirection == 100, "the status change dropped the retained walking direction")
            #expect(denied.heading == retainedHeading)
        }
    }

    @Test("a retained heading outside 0...360 is not the reference: the first heading of the new run replaces it")
    func outOfRangeRetainedHeadingIsReplaced() async throws {
        let harness = CompassTestHarness()
        // Another writer's retained heading, 365° (5° once normalised) and a walking direction of 400°.
        _ = try await Self.retainEdited(harness, heading: 5) { heading in
            heading.heading = 365
            heading.trueHeading = 365
            heading.walkingDirection = 400
        }
        try await Self.restarted(harness, pointing: 5.2) { harness in
            let replaced = try #require(try await harness.waitForHeading("walker") { ($0.heading ?? 365) < 360 })
            #expect(abs((replaced.heading ?? .nan) - 5.2) < 0.05)
            #expect(replaced.walkingDirection == nil)
        }
    }

    @Test("a magnetic north forced by a missing location is not taken for the device's setting")
    func magneticWithoutLocationIsNotASetting() async throws {
        let harness = CompassTestHarness()
        let start = CompassTestHarness.start
        try await harness.withService(Self.configuration) { harness in
            try await Self.point(harness, "nowhere", heading: 80, at: start)
            let heading = try #require(harness.heading("nowhere"))
            #expect(heading.northReference == .magnetic)
            #expect(heading.trueHeading == nil)
        }
        try await harness.withService(Self.configuration, clientID: "compass-2") { harness in
            try await harness.locate("nowhere")
            try await Self.point(harness, "nowhere", heading: 80, at: start.addingTimeInterval(1))
            let heading = try #require(harness.heading("nowhere"))
            #expect(heading.northReference == .true)
            #expect(abs(Angle.difference(from: 80, to: heading.heading ?? .nan)) < 0.1)
        }
    }

    @Test("a bad retained bearing lock is reported and the service goes on")
    func badRetainedLock() async throws {
        let harness = CompassTestHarness()
        try await harness.send("broken", .bearingLock, #"{"locked":true,"threshold":10}"#, retain: true)
        try await harness.send("odd", .heading, #"{"north":"sideways","trueHeading":3}"#, retain: true)
        let errors = try await harness.device.subscribe(to: TopicFilter(harness.topics.errors("compass")), qos: .atMostOnce)
        try await harness.withService(Self.configuration) { harness in
            let reports = await errors.collect(2, timeout: .seconds(2)).map(\.text)
            #expect(reports.contains { $0.contains("broken") && $0.contains("bearing") })
            #expect(reports.contains { $0.contains("odd") && $0.contains("north") })
            try await Self.point(harness, "broken", heading: 10, at: CompassTestHarness.start)
            #expect(harness.heading("broken")?.headingStatus == .ok)
        }
    }
}
