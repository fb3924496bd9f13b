
/// Routes a client's incoming messages to its local subscriptions.
///
/// MQTT delivers all of a client's messages on one connection; the router fans them out to the
/// ``BusSubscription`` streams whose filters match, each message at most once per subscription and in
/// arrival order. Both bus implementations use it, so they route identically.
///
/// Messages that match no subscription yet (a persistent session's queued QoS 1 messages arrive right
/// after CONNACK, before the application has subscribed again) are held, up to `pendingLimit`, and
/// handed to the first subscription whose filters match them.
///
/// Thread-safe: `route(_:)` is called on the network thread and only yields into stream continuations,
/// so no application code runs there.
public final class SubscriptionRouter: Sendable {
    private struct Entry {
        let requests: [SubscriptionRequest]
        let channel: MessageChannel
    }

    private struct State {
        var nextID = 1
        var entries: [Int: Entry] = [:]
        var order: [Int] = []
        var pending: [BusMessage] = []
        var droppedPending = 0
        var droppedSlow = 0
        var closed = false
    }

    private let state = LockedValue(State())
    private let streamLimit: Int
    private let pendingLimit: Int

    /// Creates a router.
    /// - Parameters:
    ///   - streamLimit: Messages buffered per subscription before newer ones are dropped (and counted).
    ///   - pendingLimit: Unmatched messages held for a later subscription.
    public init(streamLimit: Int = 1_000_000, pendingLimit: Int = 10_000) {
        self.streamLimit = streamLimit
        self.pendingLimit = pendingLimit
    }

    /// Adds a subscription and delivers the held messages that match it.
    public func add(_ requests: [SubscriptionRequest]) -> BusSubscription {
        let channel = MessageChannel(limit: streamLimit)
        let id = state.withLock { state -> Int in
            let id = state.nextID
            state.nextID += 1
            if state.closed {
                channel.finish()
                return id
            }
            state.entries[id] = Entry(requests: requests, channel: channel)
            state.order.append(id)
            var kept: [BusMessage] = []
            for message in state.pending {
                if requests.contains(where: { $0.filter.matches(message.topic) }) {
                    if !channel.yield(message) { state.droppedSlow += 1 }
                } else {
                    kept.append(message)
                }
            }
            state.pending = kept
            return id
        }
        return BusSubscription(id: id, requests: requests, channel: channel)
    }

    /// Removes a subscription and finishes its stream.
    /// - Returns: The filters that no remaining subscription uses (to unsubscribe at the broker).
    @discardableResult
    public func remove(_ id: Int) -> [TopicFilter] {
        state.withLock { state -> [TopicFilter] in
            guard let entry = state.entries.removeValue(forKey: id) else { return [] }
            state.order.removeAll { $0 == id }
            entry.channel.finish()
            let stillUsed = Set(state.entries.values.flatMap { $0.requests.map(\.filter) })
            return entry.requests.map(\.filter).filter { !stillUsed.contains($0) }
        }
    }

    /// Delivers a message to every matching subscription, or holds it when none matches.
    /// - Parameter holdIfUnmatched: Whether to keep an unmatched message for a later subscription.
    public func route(_ message: BusMessage, holdIfUnmatched: Bool = true) {
        state.withLock { state in
            var delivered = false
            for id in state.order {
                guard let entry = state.entries[id],
                    entry.requests.contains(where: { $0.filter.matches(message.topic) })
                else { continue }
                delivered = true
                if !entry.channel.yield(message) { state.droppedSlow += 1 }
            }
            if !delivered && holdIfUnmatched && !state.closed {
                if state.pending.count >= pendingLimit {
                    state.pending.removeFirst()
                    state.droppedPending += 1
                }
                state.pending.append(message)
            }
        }
    }

    /// Every filter in use with the highest QoS any subscription asked for, in first-use order.
    public var activeRequests: [SubscriptionRequest] {
        state.withLock { state in
            var result: [SubscriptionRequest] = []
            for id in state.order {
                for request in state.entries[id]?.requests ?? [] {
                    if let index = result.firstIndex(where: { $0.filter == request.filter }) {
                        result[index].qos = max(result[index].qos, request.qos)
                    } else {
                        result.append(request)
                    }
                }
            }
            return result
        }
    }

    /// Messages dropped because a subscriber fell `streamLimit` messages behind, or because the held
    /// buffer was full.
    public var droppedCount: (slowSubscriber: Int, unmatched: Int) {
        state.withLock { ($0.droppedSlow, $0.droppedPending) }
    }

    /// Finishes every stream; later subscriptions finish at once.
    public func close() {
        state.withLock { state in
            state.closed = true
            for entry in state.entries.values { entry.channel.finish() }
            state.entries.removeAll()
            state.order.removeAll()
            state.pending.removeAll()
        }
    }
}
