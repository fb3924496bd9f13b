import BridgeService
import Bus
import BusTesting
import Foundation
import InMemoryBus
import Testing

@Suite("Phone bridge: order under a slow bus")
struct BridgeSlowBusTests {
    @Test("a push that takes longer to publish than the idle flush time keeps its samples in time order (the held ones go after)")
    func heldSamplesWaitForThePublishBeforeThem() async throws {
        let broker = InMemoryBroker()
        let probe = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
        probe.connect()
        let feed = try await probe.subscribe(to: TopicFilter("stepcompass/pixel/imu"))
        // 15 samples published at once (the 5 newest held by the 50 ms reorder delay) at 40 ms each: 600 ms, three
        // times the bridge's 200 ms idle flush, which used to publish the held samples in the middle of them.
        // An in-memory bus whose IMU publishes take 40 ms each, as on a loaded machine or a slow broker link.
        let bus = InterceptingBus(inner: InMemoryBus(broker: broker, clientID: "stepcompass-bridge")) { message in
            if message.topic.hasSuffix("/imu") { try await Task.sleep(for: .milliseconds(40)) }
        }
        try await BridgeHarness.with(bus: bus) { bridge async throws in
            let answer = try await bridge.push(SensorLoggerBodies.android(), query: "device=pixel")
            #expect(answer.status == 200)
            let imu = await collectJSON(feed) { $0.count >= 20 }
            let stamps = imu.compactMap { $0.json["timestamp"] as? String }
            #expect(stamps.count == 20)
            #expect(stamps == stamps.sorted())
        }
    }
}
