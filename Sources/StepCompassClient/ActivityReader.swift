public import Bus
public import Foundation
public import ServiceRuntime

/// Reads the retained `stepcompass/{device}/activity` messages the activity service keeps, for one device or for
/// the only device that has one.
///
/// Like ``DeviceDiscovery``, it knows the broker's replay of retained messages is over when its own sync marker,
/// published to its topic under `replies/` after subscribing, comes back; ``window`` bounds the wait.
public struct ActivityReader: Sendable {
    public let bus: any MessageBus
    public let topics: Topics
    /// The longest wait for the retained messages.
    public var window: Duration

    /// Creates a reader over a connected bus.
    public init(bus: any MessageBus, topics: Topics, window: Duration = .seconds(2)) {
        self.bus = bus
        self.topics = topics
        self.window = window
    }

    /// `stepcompass/{device}/activity`.
    public func activityTopic(_ device: String) -> String { topics.device(device, .activity) }

    /// The activity of `requested`, or of the only device with an activity message.
    /// - Returns: The device, its report and the message's bytes.
    /// - Throws: ``StepCompassClientError``: an invalid id (`invalidInput`), no activity message (`noReply` for a named
    ///   device, `noDevice` otherwise), several devices and none named (`severalDevices`), a message that is not the
    ///   contract's (`unreadableReply`).
    public func read(_ requested: String?) async throws -> (device: String, report: ActivityMessage, payload: Data) {
        if let requested {
            do { try DeviceID.validate(requested) } catch {
                throw StepCompassClientError.invalidInput("--device: \(error.message)")
            }
        }
        let found = try await retained(filter: requested.map(activityTopic) ?? topics.allDevices(.activity))
        if let requested {
            guard let payload = found.first(where: { $0.device == requested })?.payload else {
                throw StepCompassClientError(
                    .noReply,
                    "no activity for '\(requested)' yet (no retained \(activityTopic(requested))): is stepcompass-activity running, and has the device sent steps?"
                )
            }
            return (requested, try ActivityMessage(payload: payload), payload)
        }
        switch found.count {
        case 0:
            throw StepCompassClientError(
                .noDevice,
                "no device has an activity message yet (no retained '\(topics.prefix)/+/activity'): is stepcompass-activity running, and has a device sent steps? Or name one with --device ID"
            )
        case 1:
            return (found[0].device, try ActivityMessage(payload: found[0].payload), found[0].payload)
        default:
            throw StepCompassClientError(
                .severalDevices,
                "\(found.count) devices have activity: \(found.map(\.device).sorted().joined(separator: ", ")). Choose one with --device ID")
        }
    }

    /// The retained, non-empty activity messages matching `filter`, one per valid device id.
    private func retained(filter: String) async throws -> [(device: String, payload: Data)] {
        let syncTopic = "\(topics.replies)/\(ReplyTopic.level(for: bus.clientID))/sync"
        let subscription = try await bus.subscribe(to: [
            SubscriptionRequest(try TopicFilter(filter), qos: .atLeastOnce),
            SubscriptionRequest(try TopicFilter(syncTopic), qos: .atLeastOnce),
        ])
        let marker = UUID().uuidString
        var found: [(device: String, payload: Data)] = []
        do {
            try await bus.publish(BusMessage(topic: syncTopic, text: marker, qos: .atLeastOnce))
            let deadline = ContinuousClock.now + window
            while let message = await subscription.next(before: deadline) {
                if message.topic == syncTopic {
                    if message.text == marker { break }
                    continue
                }
                guard !message.payload.isEmpty, let (device, topic) = topics.parseDeviceTopic(message.topic), topic == .activity,
                    DeviceID.isValid(device), !found.contains(where: { $0.device == device })
                else { continue }
                found.append((device, message.payload))
            }
        } catch {
            try? await bus.unsubscribe(subscription)
            throw error
        }
        try? await bus.unsubscribe(subscription)
        return found
    }
}
