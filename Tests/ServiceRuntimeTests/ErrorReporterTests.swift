import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import ServiceRuntime
import Testing

@Suite("Error reports")
struct ErrorReporterTests {
    @Test("a rejected message is reported with its topic, reason and the first 256 bytes of its payload")
    func report() async throws {
        let broker = InMemoryBroker()
        let service = InMemoryBus(broker: broker, clientID: "svc")
        service.connect()
        let watcher = InMemoryBus(broker: broker, clientID: "watch")
        watcher.connect()
        let errors = try await watcher.subscribe(to: "stepcompass/errors/position")
        let context = BusServiceContext(service: "position", bus: service, logger: Logger(label: "test"))
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
