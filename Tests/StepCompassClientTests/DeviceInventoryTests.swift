import Bus
import BusTesting
import Foundation
import InMemoryBus
import ServiceRuntime
import Testing

@testable import StepCompassClient

@Suite("stepcompass devices and forget: the devices' retained messages")
struct DeviceInventoryTests {
    static let now = Timestamp.parse("2026-11-22T10:20:00.000Z")!

    /// walker-1 with five retained topics, phone-2 with permissions only.
    private func publishDevices(_ pair: InMemoryPair) async throws {
        try await pair.publish("stepcompass/walker-1/position", #"{"timestamp":"2026-11-22T10:15:30.250Z","x":1,"y":2,"steps":10}"#, retain: true)
        try await pair.publish("stepcompass/walker-1/heading", #"{"timestamp":"2026-11-22T10:15:31.000Z","status":"ok","heading":10}"#, retain: true)
        try await pair.publish("stepcompass/walker-1/permissions", #"{"motion":"authorized","location":"authorized"}"#, retain: true)
        try await pair.publish(
            "stepcompass/walker-1/journal", #"{"timestamp":"2026-11-22T09:00:00.000Z","walk":null,"recording":false,"reason":null}"#, retain: true)
        try await pair.publish("stepcompass/walker-1/bearing-lock", #"{"locked":false}"#, retain: true)
        try await pair.publish("stepcompass/phone-2/permissions", #"{"motion":"denied"}"#, retain: true)
        // Not devices: another service's error report, a forbidden id, a cleared message, a topic that is not retained.
        try await pair.publish("stepcompass/errors/position", #"{"error":"x","timestamp":"2026-11-22T10:19:00.000Z"}"#, retain: true)
        try await pair.publish("stepcompass/bad.id/position", #"{"x":0,"y":0}"#, retain: true)
        try await pair.publish("stepcompass/gone/heading", #"{"status":"ok","heading":1}"#, retain: true)
        try await pair.services.publish(BusMessage(topic: "stepcompass/gone/heading", payload: Data(), qos: .atLeastOnce, retain: true))
        try await pair.publish("stepcompass/walker-3/steps", #"{"steps":3}"#, retain: true)
    }

    @Test("devices: each device's retained topics in the contract's order and its latest timestamp")
    func inventory() async throws {
        let pair = InMemoryPair()
        try await publishDevices(pair)
        let found = try await DeviceDiscovery(bus: pair.client, topics: pair.topics).inventory()
        #expect(Set(found.map(\.id)) == ["walker-1", "phone-2"])
        let walker = try #require(found.first { $0.id == "walker-1" })
        #expect(walker.topics == [.permissions, .heading, .bearingLock, .position, .journal])
        #expect(walker.lastSeen == Timestamp.parse("2026-11-22T10:15:31.000Z"))
        let phone = try #require(found.first { $0.id == "phone-2" })
        #expect(phone.topics == [.permissions])
        #expect(phone.lastSeen == nil)
        #expect(
            DiscoveredDevice.table(found, now: Self.now) == [
                "device    last seen (UTC)                       topics",
                "phone-2   —                                     permissions",
                "walker-1  2026-11-22 10:15:31 (4 min 29 s ago)  permissions, heading, bearing-lock, position, journal",
            ])
    }

    @Test("devices --json: id order, ISO timestamps or null, topic names")
    func json() async throws {
        let pair = InMemoryPair()
        try await publishDevices(pair)
        let found = try await DeviceDiscovery(bus: pair.client, topics: pair.topics).inventory()
        #expect(
            String(decoding: DiscoveredDevice.json(found), as: UTF8.self)
                == #"{"devices":[{"device":"phone-2","lastSeen":null,"topics":["permissions"]},"#
                + #"{"device":"walker-1","lastSeen":"2026-11-22T10:15:31.000Z","topics":["permissions","heading","bearing-lock","position","journal"]}]}"#
        )
        #expect(DiscoveredDevice.table([], now: Self.now) == ["device  last seen (UTC)  topics", "(no device has a retained message)"])
        #expect(String(decoding: DiscoveredDevice.json([]), as: UTF8.self) == #"{"devices":[]}"#)
    }

    @Test("one device's inventory subscribes to its topics only")
    func oneDevice() async throws {
        let pair = InMemoryPair()
        try await publishDevices(pair)
        let found = try await DeviceDiscovery(bus: pair.client, topics: pair.topics).inventory(device: "phone-2")
        #expect(found == [DiscoveredDevice(id: "phone-2", topics: [.permissions], lastSeen: nil)])
        #expect(try await DeviceDiscovery(bus: pair.client, topics: pair.topics).inventory(device: "nobody") == [])
    }

    @Test("forget: {} on cmd/forget, every retained topic of the device cleared, other devices untouched")
    func forget() async throws {
        let pair = InMemoryPair()
        try await publishDevices(pair)
        let commands = try await pair.services.subscribe(to: TopicFilter("stepcompass/+/cmd/#"))
        let clears = try await pair.services.subscribe(to: TopicFilter("stepcompass/walker-1/#"))
        let forgetter = DeviceForgetter(bus: pair.client, topics: pair.topics)
        let retained = try await forgetter.retainedTopics(of: "walker-1")
        #expect(retained == [.permissions, .heading, .bearingLock, .position, .journal])
        let lines = try await forgetter.forget("walker-1", clearing: retained)
        #expect(
            lines == [
                "sent {} on stepcompass/walker-1/cmd/forget (the dashboard's Home Assistant discovery, when on, removes its device)",
                "cleared stepcompass/walker-1/permissions",
                "cleared stepcompass/walker-1/heading",
                "cleared stepcompass/walker-1/bearing-lock",
                "cleared stepcompass/walker-1/position",
                "cleared stepcompass/walker-1/journal",
                "forgot walker-1: 5 retained messages cleared",
            ])
        let command = try #require(await commands.next(timeout: .seconds(5)))
        #expect(command.topic == "stepcompass/walker-1/cmd/forget")
        #expect(command.text == "{}")
        #expect(command.qos == .atLeastOnce)
        // The clears went out as empty retained QoS 1 messages, after the command.
        var cleared: [String] = []
        while cleared.count < 5, let message = await clears.next(timeout: .seconds(5)) {
            if message.payload.isEmpty {
                #expect(message.qos == .atLeastOnce)
                cleared.append(message.topic)
            }
        }
        #expect(cleared.count == 5)
        // A new reader finds walker-1 gone and phone-2 still there.
        let after = try await DeviceDiscovery(bus: pair.client, topics: pair.topics).inventory()
        #expect(after.map(\.id) == ["phone-2"])
        #expect(pair.broker.retainedMessage(on: "stepcompass/walker-1/position") == nil)
    }

    @Test("forget a device without retained messages: the command is still sent")
    func forgetNothingRetained() async throws {
        let pair = InMemoryPair()
        let commands = try await pair.services.subscribe(to: TopicFilter("stepcompass/+/cmd/forget"))
        let forgetter = DeviceForgetter(bus: pair.client, topics: pair.topics)
        #expect(try await forgetter.retainedTopics(of: "ghost") == [])
        let lines = try await forgetter.forget("ghost", clearing: [])
        #expect(lines.last == "forgot ghost (it had no retained messages)")
        #expect(await commands.next(timeout: .seconds(5))?.topic == "stepcompass/ghost/cmd/forget")
    }

    @Test("forget refuses an id that breaks the rules before sending anything", arguments: ["bad.id", "markers", "a/b"])
    func forgetInvalid(id: String) async throws {
        let pair = InMemoryPair()
        let before = pair.broker.publishedCount
        let forgetter = DeviceForgetter(bus: pair.client, topics: pair.topics)
        await #expect(throws: StepCompassClientError.self) { _ = try await forgetter.retainedTopics(of: id) }
        await #expect(throws: StepCompassClientError.self) { _ = try await forgetter.forget(id, clearing: [.heading]) }
        #expect(pair.broker.publishedCount == before)
    }
}
