public import Bus
import Foundation
import Logging

/// What ``BusServiceContext/subscribeSettled(to:window:retained:)`` hands back: the messages queued while settling,
/// and the subscription to read on from, as an async sequence or in batches, without the sync topic's messages (a
/// late marker of its own, or another instance's).
public struct SettledSubscription: AsyncSequence, Sendable {
    public typealias Element = BusMessage
    public typealias Failure = Never

    /// The subscription underneath, with the sync topic among its filters (read it through this type, which leaves
    /// the sync topic's messages out).
    let subscription: BusSubscription
    /// The non-retained messages that arrived before the retained state was read (those queued for the service's
    /// persistent session while it was away), in broker order: handle them now.
    public let queued: [BusMessage]
    /// The sync topic, whose messages are left out.
    let syncTopic: String
    /// The service's clock, on which ``nextBatch(limit:before:)``'s deadline falls.
    let clock: ServiceClock

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: BusSubscription.AsyncIterator
        let syncTopic: String

        public mutating func next() async -> BusMessage? {
            while let message = await base.next() {
                if message.topic != syncTopic { return message }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: subscription.makeAsyncIterator(), syncTopic: syncTopic)
    }

    /// The messages at hand, up to `limit` (waiting for at least one), sync messages left out; empty once the
    /// subscription has ended or the task is cancelled.
    public func nextBatch(limit: Int) async -> [BusMessage] {
        while true {
            let messages = await subscription.nextBatch(limit: limit)
            if messages.isEmpty { return messages }
            let kept = messages.filter { $0.topic != syncTopic }
            if !kept.isEmpty { return kept }
        }
    }

    /// Up to `limit` messages as ``Bus/BusSubscription/nextBatch(limit:before:)`` gives them, sync messages left out.
    /// The deadline is on the service's clock (``BusServiceContext/clock``).
    public func nextBatch(limit: Int, before deadline: ServiceClock.Instant) async -> SubscriptionBatch {
        while true {
            let batch = await subscription.nextBatch(limit: limit, before: deadline, clock: clock)
            guard case .messages(let messages) = batch else { return batch }
            let kept = messages.filter { $0.topic != syncTopic }
            if !kept.isEmpty { return .messages(kept) }
        }
    }
}

extension BusServiceContext {
    /// The service's own sync topic, `stepcompass/services/{service}/sync`, which
    /// ``subscribeSettled(to:window:retained:)`` subscribes to as well (``SettledSubscription`` leaves its messages out).
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
            logger.warning(
                "the sync marker did not come back; carrying on with the retained state received so far",
                metadata: [
                    "sync.topic": "\(syncTopic)", "sync.waited": "\(window)",
                ])
        }
        return SettledSubscription(subscription: subscription, queued: queued, syncTopic: syncTopic, clock: clock)
    }
}
