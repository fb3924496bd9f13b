import BridgeService
import Bus
import Foundation
import InMemoryBus
import Testing

/// An in-memory bus whose IMU publishes take `delay` each, as on a loaded machine or a slow broker link.
private final class SlowIMUBus: ConnectableBus, Sendable {
    private let base: InMemoryBus
    private let delay: Duration

    init(_ base: InMemoryBus, delay: Duration) {
        self.base = base
        self.delay = delay
    }

    var clientID: String { base.clientID }
    func connect(timeout: Duration) async throws { try await base.connect(timeout: timeout) }
    func disconnect(publishing finalMessages: [BusMessage], timeout: Duration) async {
        await base.disconnect(publishing: finalMessages, timeout: timeout)
    }
    func setBirthMessage(_ message: BusMessage?) { base.setBirthMessage(message) }
    func publish(_ message: BusMessage) async throws {
        if message.topic.hasSuffix("/imu") { try await Task.sleep(for: delay) }
        try await base.publish(message)
    }
    func subscribe(to requests: [SubscriptionRequest]) async throws -> BusSubscription { try await base.subscribe(to: requests) }
    func unsubscribe(_ subscription: BusSubscription) async throws { try await base.unsubscribe(subscription) }
    func flush() async throws { try await base.flush() }
}

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
        let bus = SlowIMUBus(InMemoryBus(broker: broker, clientID: "stepcompass-bridge"), delay: .milliseconds(40))
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
