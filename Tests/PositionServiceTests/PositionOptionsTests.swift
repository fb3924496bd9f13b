import Bus
import BusTesting
import Configuration
import Foundation
import InMemoryBus
import Logging
import PositionService
import ServiceRuntime
import Testing

@Suite("Position options: heading source and estimated step lengths")
struct PositionOptionsTests {
    @Test("the configuration reads heading.source and step.length (a number or the word estimated)")
    func configuration() {
        let defaults = PositionConfiguration(config: ConfigReader(provider: InMemoryProvider(values: [:])))
        #expect(defaults == PositionConfiguration.defaults)
        #expect(defaults.headingSource == .device && !defaults.estimatedStepLength && defaults.stepLength == 0.75)
        let walking = PositionConfiguration(
            config: ConfigReader(
                provider: InMemoryProvider(values: [
                    "heading.source": "walking", "step.length": "estimated",
                ])))
        #expect(walking.headingSource == .walking && walking.estimatedStepLength && walking.stepLength == 0.75)
        let metres = PositionConfiguration(
            config: ConfigReader(
                provider: InMemoryProvider(values: [
                    "heading.source": "device", "step.length": 0.8,
                ])))
        #expect(metres.headingSource == .device && !metres.estimatedStepLength && metres.stepLength == 0.8)
    }

    @Test("a bad heading.source or step.length stops the build")
    func badSettings() {
        let bus = InMemoryBus(broker: InMemoryBroker(), clientID: "x", cleanStart: true)
        let logger = Logger(label: "test")
        for values: [AbsoluteConfigKey: ConfigValue] in [["heading.source": "compass"], ["step.length": "long"]] {
            #expect(throws: ConfigurationError.self) {
                _ = try buildPosition(config: ConfigReader(provider: InMemoryProvider(values: values)), logger: logger, bus: bus)
            }
        }
    }

    @Test("heading source walking uses walkingDirection when the heading message has one, else the heading")
    func walkingSource() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(
            on: fixture.serviceBus(), configuration: PositionConfiguration(headingSource: .walking))
        let device = fixture.probe
        try await device.publish("stepcompass/w1/heading", #"{"heading": 90, "walkingDirection": 0, "status": "ok"}"#, qos: .atMostOnce)
        try await device.publish("stepcompass/w1/steps", #"{"steps": 10}"#)
        let first = try await fixture.positions(1)
        #expect(first.first?.heading == 0)
        #expect(abs((first.first?.x ?? 0) - 7.5) < 1e-9 && abs(first.first?.y ?? 1) < 1e-9)
        // Unknown walking direction (null): the heading.
        try await device.publish("stepcompass/w1/heading", #"{"heading": 90, "walkingDirection": null}"#, qos: .atMostOnce)
        try await device.publish("stepcompass/w1/steps", #"{"steps": 20}"#)
        let second = try await fixture.positions(1)
        #expect(second.first?.heading == 90)
        await service.stop()
    }

    @Test("the default heading source ignores walkingDirection")
    func deviceSource() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(on: fixture.serviceBus())
        try await fixture.probe.publish("stepcompass/w2/heading", #"{"heading": 90, "walkingDirection": 0}"#, qos: .atMostOnce)
        try await fixture.probe.publish("stepcompass/w2/steps", #"{"steps": 10, "distance": 9}"#)
        let first = try await fixture.positions(1)
        #expect(first.first?.heading == 90)
        #expect(first.first?.distance == 7.5)  // the reported distance is ignored with a fixed step length
        let retained = try #require(fixture.broker.retainedMessage(on: "stepcompass/w2/position"))
        #expect(!retained.text.contains("pendingDistance") && !retained.text.contains("sessionDistance"))
        await service.stop()
    }

    @Test("estimated step lengths advance by the reported distance increase, else by the configured length")
    func estimatedLengths() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(
            on: fixture.serviceBus(), configuration: PositionConfiguration(estimatedStepLength: true))
        let device = fixture.probe
        try await device.publish("stepcompass/e1/heading", #"{"heading": 0}"#, qos: .atMostOnce)
        // 15 steps, 12 m: one batch of 8 m, 4 m pending.
        try await device.publish("stepcompass/e1/steps", #"{"steps": 15, "distance": 12}"#)
        let first = try await fixture.positions(1)
        #expect(abs((first.first?.x ?? 0) - 8) < 1e-9)
        #expect(first.first?.distance == 12)
        // 5 more steps, 6 m more: the batch is 4 + 6 = 10 m.
        try await device.publish("stepcompass/e1/steps", #"{"steps": 20, "distance": 18}"#)
        let second = try await fixture.positions(1)
        #expect(abs((second.first?.x ?? 0) - 18) < 1e-9)
        #expect(second.first?.distance == 18)
        // No distance: 10 steps × 0.75 m.
        try await device.publish("stepcompass/e1/steps", #"{"steps": 30}"#)
        let third = try await fixture.positions(1)
        #expect(abs((third.first?.x ?? 0) - 25.5) < 1e-9)
        // After a message without a distance the baseline is unknown: this one counts 0.75 m a step too...
        try await device.publish("stepcompass/e1/steps", #"{"steps": 40, "distance": 100}"#)
        let fourth = try await fixture.positions(1)
        #expect(abs((fourth.first?.x ?? 0) - 33) < 1e-9)
        // ...and sets it for the next.
        try await device.publish("stepcompass/e1/steps", #"{"steps": 50, "distance": 109}"#)
        let fifth = try await fixture.positions(1)
        #expect(abs((fifth.first?.x ?? 0) - 42) < 1e-9)
        // A new session: its whole distance.
        try await device.publish("stepcompass/e1/steps", #"{"steps": 10, "distance": 7}"#)
        let sixth = try await fixture.positions(1)
        #expect(abs((sixth.first?.x ?? 0) - 49) < 1e-9)
        #expect(sixth.first?.steps == 60 && sixth.first?.updates == 6)
        await service.stop()
    }

    @Test("with estimated lengths a restart carries on from the retained pending and session distances")
    func estimatedRestart() async throws {
        let fixture = try await InMemoryFixture()
        let configuration = PositionConfiguration(estimatedStepLength: true)
        let firstBus = fixture.serviceBus()
        let first = try await RunningPositionService.start(on: firstBus, configuration: configuration)
        try await fixture.probe.publish("stepcompass/r1/heading", #"{"heading": 90}"#, qos: .atMostOnce, retain: true)
        try await fixture.probe.publish("stepcompass/r1/steps", #"{"steps": 14, "distance": 14}"#)
        #expect(try await fixture.positions(1).last?.steps == 14)
        let retained = try #require(fixture.broker.retainedMessage(on: "stepcompass/r1/position"))
        let extra = try JSONDecoder().decode(PositionMessage.self, from: retained.payload)
        #expect(extra.pendingDistance == 4 && extra.sessionDistance == 14)
        await first.stop()
        firstBus.disconnect()

        // While it is down: 6 steps of 1.5 m queued.
        try await fixture.probe.publish("stepcompass/r1/steps", #"{"steps": 20, "distance": 23}"#)
        let second = try await RunningPositionService.start(on: fixture.serviceBus(), configuration: configuration)
        let resumed = try await fixture.positions(1)
        // The second batch: the 4 pending metres plus 6 × 1.5 m.
        #expect(abs((resumed.last?.y ?? 0) - 23) < 1e-9)
        #expect(resumed.last?.updates == 2 && resumed.last?.distance == 23)
        await second.stop()
    }

    @Test("a position JSON cannot carry (a distance overflowed to infinity) is reported, and the service goes on")
    func unwritablePosition() async throws {
        let fixture = try await InMemoryFixture()
        let service = try await RunningPositionService.start(
            on: fixture.serviceBus(), configuration: PositionConfiguration(estimatedStepLength: true))
        let device = fixture.probe
        try await device.publish("stepcompass/o1/steps", #"{"steps": 5, "distance": 1.7e308}"#)
        #expect(try await fixture.positions(1).first?.distance == 1.7e308)
        // A new session whose whole distance is added: 3.4e308 is infinite.
        try await device.publish("stepcompass/o1/steps", #"{"steps": 3, "distance": 1.7e308}"#)
        let report = try #require(await fixture.errors.next(timeout: .seconds(60)))
        #expect(report.text.contains("cannot be written as JSON"), "\(report.text)")
        try await device.publish("stepcompass/o2/steps", #"{"steps": 4}"#)
        #expect(try await fixture.positions(1).first?.steps == 4)
        await service.stop()
    }
}
