import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import ServiceRuntime
import Testing

@Suite("Compass bearing lock")
struct CompassBearingLockTests {
    @Test("lock at a bearing or the current heading; deviation and exceeded follow the heading; unlock")
    func lockFollowsHeading() async throws {
        let harness = CompassTestHarness()
        let configuration = CompassConfiguration(smoothing: 0, maxRate: 1_000, deadBand: 0.5, staleAfter: 30)
        try await harness.withService(configuration) { harness in
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            try await harness.locate("lock")
            // Locking without a bearing before any heading is known is bad input.
            let errors = try await harness.device.subscribe(to: "stepcompass/errors/compass", qos: .atMostOnce)
            try await harness.send("lock", .commandBearingLock, #"{"action":"lock"}"#)
            let report = await errors.next(timeout: .seconds(2))
            #expect(report != nil)

            var time = CompassTestHarness.start
            func point(_ heading: Double) async throws {
                let reading = motion.reading(heading: heading, pitch: 0, roll: 0)
                time = time.addingTimeInterval(0.02)
                try await harness.sendSample("lock", at: time, accel: reading.accel, mag: reading.mag)
            }
            try await point(30)
            try await harness.waitForHeading("lock") { abs(Angle.difference(from: 30, to: $0.heading ?? .nan)) < 0.1 }

            try await harness.send("lock", .commandBearingLock, #"{"action":"lock","bearing":45,"threshold":10}"#)
            let locked = try await harness.waitFor { harness.retained(BearingLockMessage.self, "lock", .bearingLock) }
            #expect(locked?.locked == true)
            #expect(locked?.bearing == 45)
            #expect(abs((locked?.deviation ?? .nan) + 15) < 0.1)
            #expect(locked?.exceeded == true)

            try await harness.send("lock", .commandBearingLock, #"{"action":"lock"}"#)
            let here = try await harness.waitFor {
                harness.retained(BearingLockMessage.self, "lock", .bearingLock).flatMap { $0.exceeded == true ? nil : $0 }
            }
            #expect(abs(Angle.difference(from: 30, to: here?.bearing ?? .nan)) < 0.1)
            #expect(abs(here?.deviation ?? .nan) < 0.1)
            #expect(here?.threshold == 10)

            try await point(38)
            let turned = try await harness.waitFor {
                harness.retained(BearingLockMessage.self, "lock", .bearingLock).flatMap {
                    abs(($0.deviation ?? 0) - 8) < 0.1 ? $0 : nil
                }
            }
            #expect(turned?.exceeded == false)
            try await point(18)
            let exceeded = try await harness.waitFor {
                harness.retained(BearingLockMessage.self, "lock", .bearingLock).flatMap { $0.exceeded == true ? $0 : nil }
            }
            #expect(abs((exceeded?.deviation ?? .nan) + 12) < 0.1)

            try await harness.send("lock", .commandBearingLock, #"{"action":"unlock"}"#)
            let unlocked = try await harness.waitFor {
                harness.retained(BearingLockMessage.self, "lock", .bearingLock).flatMap { $0.locked ? nil : $0 }
            }
            #expect(unlocked?.bearing == nil)
            #expect(unlocked?.exceeded == false)
        }
    }
}
