import Bus
import Foundation
import InMemoryBus
import ServiceRuntime
import Testing

@testable import StepCompassClient

@Suite("Finding the device a command goes to")
struct DeviceDiscoveryTests {
    @Test("no device: a clear error")
    func none() async throws {
        let pair = InMemoryPair()
        let discovery = DeviceDiscovery(bus: pair.client, topics: pair.topics)
        #expect(try await discovery.devices() == [])
        do {
            _ = try await discovery.resolve(nil)
            Issue.record("resolved a device where there is none")
        } catch let error as StepCompassClientError {
            #expect(error.code == .noDevice)
            #expect(error.message.hasPrefix("no device has published yet"))
        }
    }

    @Test("one device: it is the default, whichever retained topic shows it")
    func one() async throws {
        let pair = InMemoryPair()
        try await pair.publish("stepcompass/phone-7/permissions", #"{"motion":"authorized","location":"denied"}"#, retain: true)
        let discovery = DeviceDiscovery(bus: pair.client, topics: pair.topics)
        #expect(try await discovery.resolve(nil) == "phone-7")
    }

    @Test("several devices: an error that lists them and asks for --device")
    func several() async throws {
        let pair = InMemoryPair()
        try await pair.publish("stepcompass/walker-1/heading", #"{"status":"ok","heading":10}"#, retain: true)
        try await pair.publish("stepcompass/walker-1/position", #"{"x":0,"y":0}"#, retain: true)
        try await pair.publish("stepcompass/phone-2/calibration", #"{"state":"calibrated"}"#, retain: true)
        let discovery = DeviceDiscovery(bus: pair.client, topics: pair.topics)
        #expect(Set(try await discovery.devices()) == ["walker-1", "phone-2"])
        do {
            _ = try await discovery.resolve(nil)
            Issue.record("resolved one of several devices")
        } catch let error as StepCompassClientError {
            #expect(error.code == .severalDevices)
            #expect(error.message == "2 devices have published: phone-2, walker-1. Choose one with --device ID")
        }
        #expect(try await discovery.resolve("phone-2") == "phone-2")
    }

    @Test("cleared messages, forbidden ids and non-retained topics do not count as devices")
    func ignored() async throws {
        let pair = InMemoryPair()
        try await pair.publish("stepcompass/errors/position", #"{"error":"x"}"#, retain: true)
        try await pair.publish("stepcompass/gone/heading", #"{"status":"ok","heading":1}"#, retain: true)
        try await pair.services.publish(BusMessage(topic: "stepcompass/gone/heading", text: "", qos: .atLeastOnce, retain: true))
        try await pair.publish("stepcompass/bad.id/position", #"{"x":0,"y":0}"#, retain: true)
        try await pair.publish("stepcompass/walker-1/steps", #"{"steps":3}"#, retain: true)
        try await pair.publish("stepcompass/walker-1/heading", #"{"status":"ok","heading":3}"#, retain: true)
        let discovery = DeviceDiscovery(bus: pair.client, topics: pair.topics)
        #expect(try await discovery.devices() == ["walker-1"])
    }

    @Test("a --device that breaks the id rules is refused", arguments: ["bad.id", "", "markers", String(repeating: "a", count: 65)])
    func invalidRequested(id: String) async throws {
        let pair = InMemoryPair()
        await #expect(throws: StepCompassClientError.invalidInput("--device: \(Self.reason(id))")) {
            _ = try await DeviceDiscovery(bus: pair.client, topics: pair.topics).resolve(id)
        }
    }

    private static func reason(_ id: String) -> String {
        do { try DeviceID.validate(id) } catch { return error.message }
        return ""
    }

    /// The window is an hour and the test's limit two minutes: passing means it ended on the sync marker.
    @Test("discovery ends when the sync marker is back, not after the whole window", .timeLimit(.minutes(2)))
    func endsEarly() async throws {
        let pair = InMemoryPair()
        try await pair.publish("stepcompass/walker-1/heading", #"{"status":"ok","heading":3}"#, retain: true)
        let discovery = DeviceDiscovery(bus: pair.client, topics: pair.topics, window: .seconds(3_600))
        #expect(try await discovery.devices() == ["walker-1"])
    }
}
