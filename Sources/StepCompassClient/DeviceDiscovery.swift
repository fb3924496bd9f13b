public import Bus
import Foundation
public import ServiceRuntime

/// Finds the devices that have published, from the retained messages the services keep for each one.
///
/// A command without `--device` goes to the only device there is. The broker replays the retained
/// `+/heading`, `+/position`, `+/permissions` and `+/calibration` messages on subscribe; to know when
/// that replay is over without sleeping a fixed time, the client then publishes a *sync marker* to its
/// own topic under `replies/` (where a client may publish in a deployment with access control). A broker
/// handles one client's packets in order, so once the marker comes back every retained message is in.
/// ``window`` bounds the wait should the marker be lost.
public struct DeviceDiscovery: Sendable {
    /// The retained per-device topics that show a device exists.
    public static let evidence: [Topics.DeviceTopic] = [.heading, .position, .permissions, .calibration]

    public let bus: any MessageBus
    public let topics: Topics
    /// The longest wait for the retained messages.
    public var window: Duration

    /// Creates a discovery over a connected bus.
    /// - Parameters:
    ///   - bus: A connected bus.
    ///   - topics: The contract's topics (with the configured prefix).
    ///   - window: The longest wait for the retained messages (normally over in milliseconds).
    public init(bus: any MessageBus, topics: Topics, window: Duration = .seconds(1)) {
        self.bus = bus
        self.topics = topics
        self.window = window
    }

    /// The devices with a retained message, in the order the broker replayed them; invalid ids and
    /// cleared (empty) messages are ignored.
    public func devices() async throws -> [String] {
        let syncTopic = "\(topics.replies)/\(ReplyTopic.level(for: bus.clientID))/sync"
        var requests = try Self.evidence.map { SubscriptionRequest(try TopicFilter(topics.allDevices($0)), qos: .atLeastOnce) }
        requests.append(SubscriptionRequest(try TopicFilter(syncTopic), qos: .atLeastOnce))
        let subscription = try await bus.subscribe(to: requests)
        let marker = UUID().uuidString
        var found: [String] = []
        do {
            try await bus.publish(BusMessage(topic: syncTopic, text: marker, qos: .atLeastOnce))
            let deadline = ContinuousClock.now + window
            while let message = await subscription.next(before: deadline) {
                if message.topic == syncTopic {
                    if message.text == marker { break }
                    continue
                }
                guard !message.payload.isEmpty, let (device, _) = topics.parseDeviceTopic(message.topic),
                    DeviceID.isValid(device), !found.contains(device)
                else { continue }
                found.append(device)
            }
        } catch {
            try? await bus.unsubscribe(subscription)
            throw error
        }
        try? await bus.unsubscribe(subscription)
        return found
    }

    /// The device a command goes to: the one asked for (checked against the contract's id rules), else
    /// the only device that has published.
    /// - Parameter requested: The `--device` value, if any.
    /// - Throws: ``StepCompassClientError`` when the id is invalid, no device has published, or several
    ///   have (listing them).
    public func resolve(_ requested: String?) async throws -> String {
        if let requested {
            do { try DeviceID.validate(requested) } catch {
                throw StepCompassClientError.invalidInput("--device: \(error.message)")
            }
            return requested
        }
        let found = try await devices()
        switch found.count {
        case 0:
            throw StepCompassClientError(.noDevice,
                "no device has published yet (no retained heading, position, permissions or calibration under '\(topics.prefix)/'): start the walker (make run) or a phone, or name one with --device ID")
        case 1:
            return found[0]
        default:
            throw StepCompassClientError(.severalDevices,
                "\(found.count) devices have published: \(found.sorted().joined(separator: ", ")). Choose one with --device ID")
        }
    }
}
