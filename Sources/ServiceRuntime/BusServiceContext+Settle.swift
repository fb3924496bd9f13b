public import Bus
import Foundation
import Logging

/// What ``BusServiceContext/subscribeSettled(to:window:retained:)`` hands back.
public struct SettledSubscription: Sendable {
    /// The subscription, to read on from.
    public let subscription: BusSubscription
    /// The non-retained messages that arrived before the retained state was read (those queued for the service's
    /// persistent session while it was away), in broker order: handle them now.
    public let queued: [BusMessage]
    /// Whether the sync marker came back within the window (if not, the retained state read so far is all there is).
    public let synced: Bool
}

extension BusServiceContext {
    /// The service's own sync topic, `stepcompass/services/{service}/sync`: ``subscribeSettled(to:window:retained:)``
    /// subscribes to it too, so its messages turn up in the subscription; skip them.
    public var syncTopic: String { "\(topics.prefix)/services/\(service)/sync" }

    /// Subscribes to `requests` (and the service's ``syncTopic``) in one subscription, says ready, and reads until the
    /// retained state is known, so that the messages queued for the service's persistent session are handled with it.
    ///
    /// A broker delivers the messages queued for a persistent session as soon as the client connects, before the
    /// retained messages a new subscription brings: a service that handled them in arrival order would handle a
    /// device's queued input before that device's retained permissions or position. So right after subscribing the
    /// service publishes a *sync marker* (a unique token, QoS 1) to its own sync topic; a broker handles one client's
    /// packets in order, so the marker comes back after every retained message of the subscription. Until then,
    /// retained messages go to `retained` at once and the others are kept (``SettledSubscription/queued``).
    /// - Parameters:
    ///   - requests: The service's filters.
    ///   - window: The longest wait for the marker (it normally comes back in milliseconds).
    ///   - isolation: The caller's actor, on which `retained` runs (the service's own).
    ///   - retained: Handles a retained message read while settling.
    public func subscribeSettled(
        to requests: [SubscriptionRequest], window: Duration, isolation: isolated (any Actor)? = #isolation,
        retained: (BusMessage) async throws -> Void
    ) async throws -> SettledSubscription {
        let syncTopic = self.syncTopic
        let subscription = try await bus.subscribe(to: requests + [SubscriptionRequest(try TopicFilter(syncTopic), qos: .atLeastOnce)])
        try await ready()
        let marker = #"{"token":"\#(UUID().uuidString)"}"#
        try await bus.publish(BusMessage(topic: syncTopic, text: marker, qos: .atLeastOnce))
        var queued: [BusMessage] = []
        var synced = false
        let deadline = ContinuousClock.now.advanced(by: window)
        while !synced, ContinuousClock.now < deadline, !Task.isCancelled {
            guard let message = await subscription.next(before: deadline) else { continue }
            if message.topic == syncTopic {
                synced = message.text == marker
            } else if message.retain {
                try await retained(message)
            } else {
                queued.append(message)
            }
        }
        if !synced {
            logger.warning("the sync marker did not come back; carrying on with the retained state received so far", metadata: [
                "sync.topic": "\(syncTopic)", "sync.waited": "\(window)",
            ])
        }
        return SettledSubscription(subscription: subscription, queued: queued, synced: synced)
    }
}
