import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import InMemoryBus
import Logging
import ServiceRuntime
import Testing

/// Holds back one heading publish until the test lets it go (an ``InterceptingBus``'s `beforePublish`): it makes the
/// timer's publish suspend at a chosen moment, as a busy broker connection can.
final class PublishGate: Sendable {
    private let state = LockedValue<(armed: Bool, waiting: CheckedContinuation<Void, Never>?, lockPublishes: Int)>((false, nil, 0))

    /// Holds the next heading publish.
    func arm() { state.withLock { $0.armed = true } }

    var isHolding: Bool { state.withLock { $0.waiting != nil } }
    var lockPublishes: Int { state.withLock { $0.lockPublishes } }

    /// Lets the held publish go on.
    func release() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }

    /// Before each publish: waits while a heading is held, and counts the bearing-lock publishes.
    func beforePublish(_ message: BusMessage) async {
        if message.topic.hasSuffix("/heading") {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let hold = state.withLock { state -> Bool in
                    guard state.armed else { return false }
                    state.armed = false
                    state.waiting = continuation
                    return true
                }
                if !hold { continuation.resume() }
            }
        }
        if message.topic.hasSuffix("/bearing-lock") { state.withLock { $0.lockPublishes += 1 } }
    }
}

@Suite("Compass publish order")
struct CompassPublishOrderTests {
    @Test("an unlock handled while the timer's publish of a held heading is suspended is the retained bearing lock")
    func unlockDuringTimerPublish() async throws {
        let harness = CompassTestHarness()
        let inner = InMemoryBus(broker: harness.broker, clientID: "compass")
        inner.connect()
        let gate = PublishGate()
        let bus = InterceptingBus(inner: inner) { await gate.beforePublish($0) }
        let ready = AsyncStream<Void>.makeStream()
        let context = BusServiceContext(
            service: "compass", bus: bus, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        ) { ready.continuation.yield() }
        var configuration = CompassConfiguration(smoothing: 0, maxRate: 10, deadBand: 0.5, staleAfter: 30)
        configuration.restoreQuietPeriod = 0.02
        let service = try CompassService(configuration: configuration, context: context, model: CompassTestHarness.model)
        let task = Task { try await service.run() }
        defer { task.cancel() }
        var iterator = ready.stream.makeAsyncIterator()
        await iterator.next()

        let motion = DeviceMotion(field: CompassTestHarness.boulderField())
        var time = CompassTestHarness.start
        func point(_ heading: Double, after seconds: Double) async throws {
            let reading = motion.reading(heading: heading, pitch: 0, roll: 0)
            time = time.addingTimeInterval(seconds)
            try await harness.sendSample("order", at: time, accel: reading.accel, mag: reading.mag)
        }
        try await harness.locate("order")
        try await point(30, after: 0.02)
        try await harness.waitForHeading("order") { abs(Angle.difference(from: 30, to: $0.heading ?? .nan)) < 0.1 }
        try await harness.send("order", .commandBearingLock, #"{"action":"lock","bearing":45,"threshold":10}"#)
        _ = try await harness.waitFor { harness.retained(BearingLockMessage.self, "order", .bearingLock)?.locked == true ? true : nil }

        // A second heading 10 ms later is held by the rate limit (10 a second); the timer publishes it when its window
        // ends, with the bearing lock whose deviation it moved. That heading publish is held.
        gate.arm()
        try await point(50, after: 0.01)
        _ = try await harness.waitFor(timeout: 60) { gate.isHolding ? true : nil }
        let before = gate.lockPublishes

        // Meanwhile the device is unlocked.
        try await harness.send("order", .commandBearingLock, #"{"action":"unlock"}"#)
        try await harness.drain()
        gate.release()

        // The timer's lock message (computed before the unlock) and the unlocked one are both published; the
        // unlocked one must be last.
        _ = try await harness.waitFor(timeout: 60) { gate.lockPublishes >= before + 2 ? true : nil }
        try await harness.drain()
        let retained = harness.retained(BearingLockMessage.self, "order", .bearingLock)
        #expect(retained?.locked == false, "the retained bearing lock is \(String(describing: retained))")
    }
}
