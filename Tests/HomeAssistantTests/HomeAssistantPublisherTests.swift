import Bus
import BusTesting
import Foundation
import HomeAssistantKit
import HomeAssistantService
import InMemoryBus
import Logging
import ServiceLifecycle
import ServiceRuntime
import Testing

@Suite("Home Assistant discovery over the bus")
struct HomeAssistantPublisherTests {
    /// Runs the publisher over an in-memory broker for the duration of `body`.
    func withPublisher(idle: Duration = .seconds(3_600), _ body: (InMemoryBroker, InMemoryBus) async throws -> Void) async throws {
        let broker = InMemoryBroker()
        let probe = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
        probe.connect()
        let bus = InMemoryBus(broker: broker, clientID: "stepcompass-dashboard")
        let runtime = BusRuntime(service: "dashboard", topics: Topics(), logger: Logger(label: "test.ha"), bus: bus)
        let publisher = HomeAssistantPublisher(
            discovery: HomeAssistantDiscovery(version: "0.1.0"), context: runtime.context, idleTimeout: idle)
        let group = runtime.group([publisher])
        let running = Task { try await group.run() }
        do {
            try await body(broker, probe)
        } catch {
            await group.triggerGracefulShutdown()
            _ = try? await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test("a walker seen gets a retained config once; Home Assistant online gets it again; forget clears it")
    func lifecycle() async throws {
        try await withPublisher { broker, probe in
            let configs = try await probe.subscribe(to: TopicFilter("homeassistant/device/+/config"))
            try await probe.publish(
                BusMessage(topic: "stepcompass/walker-1/position", text: #"{"x":1,"y":2,"steps":10}"#, qos: .atLeastOnce, retain: true))
            let first = try #require(await configs.next(timeout: .seconds(10)))
            #expect(first.topic == "homeassistant/device/stepcompass_walker-1/config")
            #expect(broker.retainedMessage(on: first.topic)?.payload == first.payload)
            #expect(first.text.contains(#""unique_id":"stepcompass_walker-1_steps""#))
            // More messages from the same walker: no new config. The publisher handles messages in order, so the next
            // config being another walker's shows none came for walker-1 in between.
            try await probe.publish(BusMessage(topic: "stepcompass/walker-1/heading", text: #"{"heading":10}"#, qos: .atLeastOnce))
            try await probe.publish(BusMessage(topic: "stepcompass/marker-a/steps", text: #"{"steps":1}"#, qos: .atLeastOnce))
            #expect(await configs.next(timeout: .seconds(10))?.topic == "homeassistant/device/stepcompass_marker-a/config")
            // Home Assistant restarted.
            try await probe.publish(BusMessage(topic: "homeassistant/status", text: "online", qos: .atLeastOnce))
            var again: [String: Data] = [:]
            for message in await configs.collect(2, timeout: .seconds(10)) { again[message.topic] = message.payload }
            #expect(again[first.topic] == first.payload)
            #expect(again.count == 2)
            // Errors and service topics are not walkers.
            try await probe.publish(BusMessage(topic: "stepcompass/errors/position", text: #"{"error":"x"}"#, qos: .atLeastOnce))
            try await probe.publish(BusMessage(topic: "stepcompass/services/compass/status", text: #"{"state":"online"}"#, qos: .atLeastOnce))
            try await probe.publish(BusMessage(topic: "stepcompass/marker-b/steps", text: #"{"steps":1}"#, qos: .atLeastOnce))
            #expect(await configs.next(timeout: .seconds(10))?.topic == "homeassistant/device/stepcompass_marker-b/config")
            // Forgotten: an empty retained config removes the device from Home Assistant.
            try await probe.publish(BusMessage(topic: "stepcompass/walker-1/cmd/forget", text: "{}", qos: .atLeastOnce))
            let cleared = try #require(await configs.next(timeout: .seconds(10)))
            #expect(cleared.topic == first.topic)
            #expect(cleared.payload.isEmpty)
            #expect(broker.retainedMessage(on: first.topic) == nil)
        }
    }

    @Test("a walker idle for the timeout has its config cleared; when it comes back it is announced again")
    func idle() async throws {
        try await withPublisher(idle: .seconds(1)) { broker, probe in
            let configs = try await probe.subscribe(to: TopicFilter("homeassistant/device/+/config"))
            // Retained: it reaches the publisher whenever it subscribes.
            try await probe.publish(
                BusMessage(topic: "stepcompass/idle-1/permissions", text: #"{"motion":"authorized"}"#, qos: .atLeastOnce, retain: true))
            #expect(await configs.next(timeout: .seconds(10))?.payload.isEmpty == false)
            let cleared = try #require(await configs.next(timeout: .seconds(10)))
            #expect(cleared.payload.isEmpty)
            try await probe.publish(BusMessage(topic: "stepcompass/idle-1/steps", text: #"{"steps":3}"#, qos: .atLeastOnce))
            #expect(await configs.next(timeout: .seconds(10))?.payload.isEmpty == false)
        }
    }
}
