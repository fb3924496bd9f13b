import Bus
import BusTesting
import Configuration
import Foundation
import InMemoryBus
import Logging
import PositionService
import ServiceLifecycle
import ServiceRuntime
import StepCompassTesting
import Testing

/// The executable's own builder, assembled in-process over the in-memory bus: what `stepcompass-position`
/// runs, minus the process.
@Suite("buildPosition over the in-memory bus")
struct PositionBuildTests {
    @Test("the built group goes online, computes positions with its configuration, and publishes offline when it stops")
    func lifecycle() async throws {
        let fixture = try await InMemoryFixture()
        let statusFeed = try await fixture.probe.subscribe(to: TopicFilter("stepcompass/services/position/status"))
        let config = ConfigReader(provider: InMemoryProvider(values: ["steps.per.update": 5, "step.length": 0.5]))
        let bus = InMemoryBus(broker: fixture.broker, clientID: "stepcompass-position")
        let group = try buildPosition(config: config, logger: Logger(label: "test.position"), bus: bus)
        try await withRunningGroup(group) {
            try await runWalk(fixture: fixture, statusFeed: statusFeed)
        }
        let offline = try #require(await statusFeed.next(timeout: .seconds(20)))
        #expect(try JSONDecoder().decode(ServiceStatus.self, from: offline.payload).state == .offline)
        #expect(fixture.broker.retainedMessage(on: "stepcompass/services/position/status")?.text.contains("offline") == true)
    }

    private func runWalk(fixture: InMemoryFixture, statusFeed: BusSubscription) async throws {
        let online = try #require(await statusFeed.next(timeout: .seconds(20)))
        #expect(try JSONDecoder().decode(ServiceStatus.self, from: online.payload).state == .online)
        #expect(fixture.broker.retainedMessage(on: online.topic)?.text.contains("online") == true)

        try await fixture.probe.publish("stepcompass/phone/heading", #"{"status": "ok", "heading": 90}"#, qos: .atMostOnce)
        try await fixture.probe.publish("stepcompass/phone/steps", #"{"steps": 0}"#)
        try await fixture.probe.publish("stepcompass/phone/steps", #"{"steps": 5}"#)
        var last = try #require(try await fixture.positions(1).last)
        if last.steps == 0 { last = try #require(try await fixture.positions(1).last) }
        #expect(last.steps == 5)
        #expect(last.updates == 1)
        #expect(abs(last.y - 2.5) < 1e-9)  // 5 steps × 0.5 m east
    }

}
