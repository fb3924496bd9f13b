import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import ServiceRuntime
import StepCompassTesting
import Testing

/// The position service's context over an in-memory broker, and a watcher's subscription to its error topic.
private func reporting(clock: ServiceClock = .continuous) async throws -> (BusServiceContext, BusSubscription) {
    let broker = InMemoryBroker()
    let service = InMemoryBus(broker: broker, clientID: "svc")
    service.connect()
    let watcher = InMemoryBus(broker: broker, clientID: "watch")
    watcher.connect()
    let errors = try await watcher.subscribe(to: "stepcompass/errors/position")
    return (BusServiceContext(service: "position", bus: service, logger: Logger(label: "test"), clock: clock), errors)
}

@Suite("Error reports")
struct ErrorReporterTests {
    @Test("a rejected message is reported with its topic, reason and the first 256 bytes of its payload")
    func report() async throws {
        let (context, errors) = try await reporting()
        let bad = BusMessage(topic: "stepcompass/d1/steps", text: String(repeating: "z", count: 1_000))
        await context.errors.reject(bad, reason: "the payload is not a JSON object")
        let message = try #require(await errors.next(timeout: .seconds(1)))
        let report = try #require(try JSONSerialization.jsonObject(with: message.payload) as? [String: String])
        #expect(report["topic"] == "stepcompass/d1/steps")
        #expect(report["error"] == "the payload is not a JSON object")
        #expect(report["payload"]?.utf8.count == 256)
        #expect(report["timestamp"].flatMap(Timestamp.parse) != nil)
        #expect(message.qos == .atMostOnce)
    }
}

@Suite("Error report loops")
struct ErrorReportLoopTests {
    @Test("an error report is never reported again (stepcompass/+/position also matches stepcompass/errors/position)")
    func noLoop() async throws {
        let broker = InMemoryBroker()
        let service = InMemoryBus(broker: broker, clientID: "svc")
        service.connect()
        let errors = try await service.subscribe(to: "stepcompass/errors/#")
        let context = BusServiceContext(service: "position", bus: service, logger: Logger(label: "test"))
        await context.errors.reject(BusMessage(topic: "stepcompass/errors/position", text: "{}"), reason: "'errors' is reserved")
        #expect(await errors.next(timeout: .milliseconds(200)) == nil)
        await context.errors.reject(BusMessage(topic: "stepcompass/d1/steps", text: "x"), reason: "bad")
        #expect(await errors.next(timeout: .seconds(1))?.topic == "stepcompass/errors/position")
    }
}

@Suite("Error report rate limit")
struct ErrorReportRateLimitTests {
    @Test("a flood of rejections publishes the burst, then one report a tick that says how many were left out")
    func flood() async throws {
        let clock = ManualClock()
        let epoch = Date(timeIntervalSince1970: 1_795_341_600)
        let (context, errors) = try await reporting(clock: ServiceClock(clock, epoch: epoch))
        let limit = ErrorReporter.Limit.defaults
        for index in 0..<1_000 {
            await context.errors.reject(BusMessage(topic: "stepcompass/d\(index)/steps", text: "x"), reason: "bad \(index)")
        }
        let burst = await errors.collect(limit.burst, timeout: .seconds(10))
        #expect(burst.count == limit.burst)
        #expect(burst.allSatisfy { (try? JSONSerialization.jsonObject(with: $0.payload) as? [String: Any])?["dropped"] == nil })
        // The bucket is empty: one more is left out until a token comes back (1 / perSecond of the clock's time).
        await context.errors.reject(BusMessage(topic: "stepcompass/late/steps", text: "x"), reason: "late")
        clock.advance(by: .milliseconds(Int64(1_000 / limit.perSecond)))
        await context.errors.reject(BusMessage(topic: "stepcompass/next/steps", text: "x"), reason: "next")
        let next = try #require(await errors.next(timeout: .seconds(10)))
        let report = try #require(try JSONSerialization.jsonObject(with: next.payload) as? [String: Any])
        #expect(report["topic"] as? String == "stepcompass/next/steps")
        #expect(report["dropped"] as? Int == 1_000 - limit.burst + 1)
        // Stamped with the service's clock: the epoch plus the time it was advanced.
        let stamped = try #require((report["timestamp"] as? String).flatMap(Timestamp.parse))
        #expect(abs(stamped.timeIntervalSince(epoch) - 1 / limit.perSecond) <= 0.0011)
        // Nothing else went out: 1,001 rejections left out, 21 reported.
        #expect(await errors.collect(1, timeout: .milliseconds(100)).isEmpty)
    }
}
