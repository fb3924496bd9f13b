import Bus
import Foundation
import ServiceRuntime

/// Reads the retained messages of some filters, without sleeping a fixed time.
///
/// It subscribes to the filters and to the client's own sync topic under `replies/` (where a client may publish in
/// a deployment with access control), then publishes a *sync marker* there. A broker handles one client's packets
/// in order, so once the marker comes back every retained message of the filters is in. `window` bounds the wait
/// should the marker be lost. Live messages that arrive meanwhile are returned too, in the order received.
enum RetainedSnapshot {
    /// The messages received on `filters` until the sync marker came back (or `window` passed).
    /// - Throws: The bus's error when a filter is invalid, a subscription is refused or the marker cannot be sent.
    static func read(bus: any MessageBus, topics: Topics, filters: [TopicFilterText], window: Duration) async throws -> [BusMessage] {
        let syncTopic = "\(topics.replies)/\(ReplyTopic.level(for: bus.clientID))/sync"
        var requests = try filters.map { SubscriptionRequest(try TopicFilter($0), qos: .atLeastOnce) }
        requests.append(SubscriptionRequest(try TopicFilter(syncTopic), qos: .atLeastOnce))
        let subscription = try await bus.subscribe(to: requests)
        let marker = UUID().uuidString
        var received: [BusMessage] = []
        do {
            try await bus.publish(BusMessage(topic: syncTopic, text: marker, qos: .atLeastOnce))
            let deadline = ContinuousClock.now + window
            while let message = await subscription.next(before: deadline) {
                if message.topic == syncTopic {
                    if message.text == marker { break }
                    continue
                }
                received.append(message)
            }
        } catch {
            try? await bus.unsubscribe(subscription)
            throw error
        }
        try? await bus.unsubscribe(subscription)
        return received
    }
}
