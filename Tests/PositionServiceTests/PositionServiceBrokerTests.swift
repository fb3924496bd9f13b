import Bus
import BusTesting
import Configuration
import Foundation
import Logging
import MosquittoBus
import PositionService
import ServiceRuntime
import StepCompassTesting
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

    @Test("a broker killed before it saved gets the retained positions back from the service; a forgotten device's does not come back")
    func restatedAfterBrokerLostItsStore() async throws {
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let probe = try await harness.makeClient(id: "probe", cleanStart: true, will: nil)
            let positions = try await probe.subscribe(to: TopicFilter("stepcompass/+/position"))
            let bus = try MosquittoBus(
                configuration: MosquittoConfiguration(
                    host: "127.0.0.1", port: broker.port, clientID: "stepcompass-position", cleanStart: false,
                    reconnectDelay: .milliseconds(50), reconnectDelayMax: .milliseconds(500)),
                logger: Logger(label: "test.position.bus"))
            let config = ConfigReader(provider: InMemoryProvider(values: ["settle.ms": 200]))
            let group = try buildPosition(config: config, logger: Logger(label: "test.position"), bus: bus)
            try await withRunningGroup(group) {
                let status = try await probe.subscribe(to: TopicFilter("stepcompass/services/position/status"))
                #expect(await status.next(timeout: .seconds(20))?.text.contains("online") == true)
                try await probe.publish("stepcompass/m1/heading", #"{"heading": 90}"#, qos: .atMostOnce)
                try await probe.publish("stepcompass/m1/steps", #"{"steps": 10}"#)
                let first = try #require(await positions.next(timeout: .seconds(20)))
                #expect(try PositionMessage.decode(first).steps == 10)

                // Killed before any save: the broker comes back without the retained position; the service's reconnect
                // publishes it again.
                await broker.kill9()
                try await broker.startAndWait()
                let late = try await harness.makeClient(id: "late", cleanStart: true, will: nil)
                let back = try await late.subscribe(to: TopicFilter("stepcompass/m1/position"), qos: .atLeastOnce)
                let restated = try #require(await back.next(timeout: .seconds(30)))
                #expect(try PositionMessage.decode(restated).steps == 10)
                await late.close()

                // `stepcompass forget m1`: the command, then the cleared position. m2's steps, handled after the command
                // (one subscription, in order), say when it was.
                try await probe.publish("stepcompass/m1/cmd/forget", "{}")
                try await probe.publish(BusMessage(topic: "stepcompass/m1/position", payload: Data(), qos: .atLeastOnce, retain: true))
                try await probe.publish("stepcompass/m2/heading", #"{"heading": 0}"#, qos: .atMostOnce)
                try await probe.publish("stepcompass/m2/steps", #"{"steps": 10}"#)
                while let message = await positions.next(timeout: .seconds(20)), !message.topic.hasPrefix("stepcompass/m2/") {}
                await broker.kill9()
                try await broker.startAndWait()
                let later = try await harness.makeClient(id: "later", cleanStart: true, will: nil)
                let all = try await later.subscribe(to: TopicFilter("stepcompass/+/position"), qos: .atLeastOnce)
                // m2 comes back; m1, restated before m2 (in topic order) if at all, does not.
                var seen: [String] = []
                while let message = await all.next(timeout: .seconds(30)) {
                    seen.append(message.topic)
                    if message.topic == "stepcompass/m2/position" { break }
                }
                #expect(seen == ["stepcompass/m2/position"])
                await later.close()
            }
            await probe.close()
        }
    }

    /// Counts the live (non-retained) position messages a bus receives from the broker.
    final class LivePositionsReceived: BusObserver {
        let count = LockedValue(0)
        func received(_ messages: [BusMessage]) {
            let live = messages.count(where: { !$0.retain && $0.topic.hasSuffix("/position") })
            if live > 0 { count.withLock { $0 += live } }
        }
        func published(_ message: BusMessage) {}
        func connection(up: Bool) {}
    }

    @Test(
        "the service does not get its own positions back over MQTT 5 (No Local); over 3.1.1 it does, and ignores them",
        arguments: [MosquittoConfiguration.ProtocolVersion.v5, .v311])
    func ownPositionsStayAway(_ version: MosquittoConfiguration.ProtocolVersion) async throws {
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let probe = try await harness.makeClient(id: "probe", cleanStart: true, will: nil)
            let positions = try await probe.subscribe(to: TopicFilter("stepcompass/+/position"))
            let observer = LivePositionsReceived()
            var configuration = MosquittoConfiguration(
                host: "127.0.0.1", port: broker.port, clientID: "position-\(version.rawValue)", protocolVersion: version,
                cleanStart: true)
            configuration.observer = observer
            let bus = try MosquittoBus(configuration: configuration, logger: Logger(label: "test.position.bus"))
            try await bus.connect(timeout: .seconds(10))
            let service = try await RunningPositionService.start(on: bus)
            try await probe.publish("stepcompass/d1/heading", #"{"heading": 90}"#)
            for count in stride(from: 3, through: 30, by: 3) {
                try await probe.publish("stepcompass/d1/steps", #"{"steps": \#(count)}"#)
            }
            var last: PositionMessage?
            while let message = await positions.next(timeout: .seconds(20)) {
                last = try PositionMessage.decode(message)
                if last?.steps == 30 { break }
            }
            #expect(last?.steps == 30 && last?.updates == 3)
            #expect(abs((last?.y ?? 0) - 22.5) < 1e-9)
            // A later message of another device: the broker queued any echo of d1's positions to the service before it,
            // so once d2's position is out, every echo there was has been received.
            try await probe.publish("stepcompass/d2/steps", #"{"steps": 1}"#)
            while let message = await positions.next(timeout: .seconds(20)), message.topic != "stepcompass/d2/position" {}
            let echoes = observer.count.withLock { $0 }
            if version == .v5 {
                #expect(echoes == 0, "the broker sent the service \(echoes) of its own positions")
            } else {
                #expect(echoes >= 10, "MQTT 3.1.1 has no No Local: the service's own positions come back (\(echoes))")
            }
            await service.stop()
            await bus.disconnect()
            await probe.close()
        }
    }
}
