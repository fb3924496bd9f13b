public import Bus
import Foundation
public import ServiceRuntime

/// Forgets a walker (`stepcompass forget DEVICE`): publishes `{}` on `{device}/cmd/forget`, on which the dashboard's
/// Home Assistant discovery removes the walker's Home Assistant device, and clears the device's retained messages
/// (an empty retained message, QoS 1, on each retained topic that has one), so it no longer shows in `devices`,
/// the dashboard's picker after a restart, or anything that reads the retained topics.
///
/// The services' own state is not reset (the position service keeps the device's position in memory, the activity
/// service and the journal their databases); a service publishes its retained topics again when the device sends.
public struct DeviceForgetter: Sendable {
    public let bus: any MessageBus
    public let topics: Topics
    /// The longest wait for the retained messages.
    public var window: Duration

    public init(bus: any MessageBus, topics: Topics, window: Duration = .seconds(2)) {
        self.bus = bus
        self.topics = topics
        self.window = window
    }

    /// The retained topics `device` has now, in the order of ``DeviceDiscovery/retained``.
    /// - Throws: ``StepCompassClientError/Code/invalidInput`` for an id that breaks the contract's rules.
    public func retainedTopics(of device: String) async throws -> [Topics.DeviceTopic] {
        try Self.validate(device)
        let found = try await DeviceDiscovery(bus: bus, topics: topics, window: window).inventory(device: device)
        return found.first { $0.id == device }?.topics ?? []
    }

    /// Sends the forget command, then clears each of `retained`.
    /// - Returns: The lines to print: what was sent and each topic cleared.
    public func forget(_ device: String, clearing retained: [Topics.DeviceTopic]) async throws -> [String] {
        try Self.validate(device)
        let command = topics.device(device, .commandForget)
        try await bus.publish(BusMessage(topic: command, text: "{}", qos: .atLeastOnce))
        var lines = ["sent {} on \(command) (the dashboard's Home Assistant discovery, when on, removes its device)"]
        for topic in retained {
            let name = topics.device(device, topic)
            try await bus.publish(BusMessage(topic: name, payload: Data(), qos: .atLeastOnce, retain: true))
            lines.append("cleared \(name)")
        }
        lines.append(
            retained.isEmpty
                ? "forgot \(device) (it had no retained messages)"
                : "forgot \(device): \(retained.count) retained message\(retained.count == 1 ? "" : "s") cleared")
        return lines
    }

    private static func validate(_ device: String) throws(StepCompassClientError) {
        do { try DeviceID.validate(device) } catch {
            throw StepCompassClientError.invalidInput("DEVICE: \(error.message)")
        }
    }
}
