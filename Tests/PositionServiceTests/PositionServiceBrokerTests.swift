import Bus
import BusTesting
import Foundation
import PositionService
import ServiceRuntime
import Testing

@Suite("Position service on a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct PositionServiceBrokerTests {
    @Test("a restarted service restores the retained position and counts queued steps exactly once")
    func restartOnRealBroker() async throws {
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let probe = try await harness.makeClient(id: "probe", cleanStart: true, will: nil)
            let positions = try await probe.subscribe(to: TopicFilter("stepcompass/+/position"))

            let firstBus = try await harness.makeClient(id: "stepcompass-position", cleanStart: false, will: nil)
            let first = try await RunningPositionService.start(
                on: firstBus, configuration: PositionConfiguration())
            try await probe.publish("stepcompass/m1/heading", #"{"heading": 90}"#, qos: .atMostOnce, retain: true)
            try await probe.publish("stepcompass/m1/steps", #"{"steps": 25}"#)
            let before = try await positions.collect(2).map(PositionMessage.decode)
            #expect(before.last?.steps == 25 && before.last?.updates == 2)
            await first.stop()
            await firstBus.crash()

            try await probe.publish("stepcompass/m1/steps", #"{"steps": 32}"#)
            try await probe.publish("stepcompass/m1/steps", #"{"steps": 47}"#)
            try await probe.flush()

            let secondBus = try await harness.makeClient(id: "stepcompass-position", cleanStart: false, will: nil)
            let second = try await RunningPositionService.start(
                on: secondBus, configuration: PositionConfiguration())
            let after = try await positions.collect(3, timeout: .seconds(2)).map(PositionMessage.decode)
            #expect(after.map(\.steps) == [32, 47])
            #expect(after.last?.updates == 4)
            #expect(abs((after.last?.y ?? 0) - 30) < 1e-9)
            await second.stop()
            await secondBus.close()
            await probe.close()
        }
    }
}
