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
        let id: Int
        let requests: [SubscriptionRequest]
        let channel: MessageChannel

        func matches(_ topic: String) -> Bool {
            requests.contains { $0.filter.matches(topic) }
        }
    }

    private struct State {
        var nextID = 1
        /// The subscriptions in the order they were added: an array, since every message walks it.
        var entries: [Entry] = []
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
            let entry = Entry(id: id, requests: requests, channel: channel)
            state.entries.append(entry)
            var kept: [BusMessage] = []
            for message in state.pending {
                if entry.matches(message.topic) {
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
            guard let index = state.entries.firstIndex(where: { $0.id == id }) else { return [] }
            let entry = state.entries.remove(at: index)
            entry.channel.finish()
            let stillUsed = Set(state.entries.flatMap { $0.requests.map(\.filter) })
            return entry.requests.map(\.filter).filter { !stillUsed.contains($0) }
        }
    }

    /// Delivers a message to every matching subscription, or holds it when none matches.
    /// - Parameter holdIfUnmatched: Whether to keep an unmatched message for a later subscription.
    public func route(_ message: BusMessage, holdIfUnmatched: Bool = true) {
        state.withLock { state in
            var delivered = false
            for entry in state.entries where entry.matches(message.topic) {
                delivered = true
                if !entry.channel.yield(message) { state.droppedSlow += 1 }
            }
            if !delivered && holdIfUnmatched { Self.hold(message, in: &state, limit: pendingLimit) }
        }
    }

    /// Delivers messages received together, as ``route(_:holdIfUnmatched:)`` does one by one, but
    /// handing each subscription its share at once: its consumer is woken once per batch rather than
    /// once per message, which matters at tens of thousands of messages a second.
    public func route(_ messages: [BusMessage], holdIfUnmatched: Bool = true) {
        guard messages.count > 1 else {
            if let message = messages.first { route(message, holdIfUnmatched: holdIfUnmatched) }
            return
        }
        state.withLock { state in
            // The usual case of a service with one subscription that takes every message it receives:
            // hand the batch over as it is.
            if state.entries.count == 1, messages.allSatisfy({ state.entries[0].matches($0.topic) }) {
                state.droppedSlow += state.entries[0].channel.yield(contentsOf: messages)
                return
            }
            var shares = [[BusMessage]](repeating: [], count: state.entries.count)
            for message in messages {
                var delivered = false
                for (index, entry) in state.entries.enumerated() where entry.matches(message.topic) {
                    delivered = true
                    shares[index].append(message)
                }
                if !delivered && holdIfUnmatched { Self.hold(message, in: &state, limit: pendingLimit) }
            }
            for (index, entry) in state.entries.enumerated() where !shares[index].isEmpty {
                state.droppedSlow += entry.channel.yield(contentsOf: shares[index])
            }
        }
    }

    private static func hold(_ message: BusMessage, in state: inout State, limit: Int) {
        guard !state.closed else { return }
        if state.pending.count >= limit {
            state.pending.removeFirst()
            state.droppedPending += 1
        }
        state.pending.append(message)
    }

    /// Every filter in use as the broker should have it, in first-use order: the highest QoS any subscription asked
    /// for, and No Local only when every subscription using the filter asked for it (a broker keeps one subscription
    /// per filter and client, and one that wants the client's own messages must get them).
    public var activeRequests: [SubscriptionRequest] {
        state.withLock { Self.merged($0.entries.lazy.flatMap(\.requests)) }
    }

    /// The requests for `filters` merged as ``activeRequests`` merges them.
    public func activeRequests(for filters: [TopicFilter]) -> [SubscriptionRequest] {
        let wanted = Set(filters)
        return state.withLock { state in
            Self.merged(state.entries.lazy.flatMap(\.requests).filter { wanted.contains($0.filter) })
        }
    }

    private static func merged(_ requests: some Sequence<SubscriptionRequest>) -> [SubscriptionRequest] {
        var result: [SubscriptionRequest] = []
        for request in requests {
            if let index = result.firstIndex(where: { $0.filter == request.filter }) {
                result[index].qos = max(result[index].qos, request.qos)
                result[index].noLocal = result[index].noLocal && request.noLocal
            } else {
                result.append(request)
            }
        }
        return result
    }

    /// Messages dropped because a subscriber fell `streamLimit` messages behind, or because the held
    /// buffer was full.
    public var droppedCount: (slowSubscriber: Int, unmatched: Int) {
        state.withLock { ($0.droppedSlow, $0.droppedPending) }
    }

    /// The subscriptions' backlog now, the held messages, and the drops so far.
    public var bufferStatistics: SubscriptionBufferStatistics {
        state.withLock { state in
            SubscriptionBufferStatistics(
                subscriptions: state.entries.count,
                buffered: state.entries.reduce(0) { $0 + $1.channel.bufferedCount },
                held: state.pending.count,
                droppedFull: state.droppedSlow,
                droppedUnmatched: state.droppedPending)
        }
    }

    /// Finishes every stream; later subscriptions finish at once.
    public func close() {
        state.withLock { state in
            state.closed = true
            for entry in state.entries { entry.channel.finish() }
            state.entries.removeAll()
            state.pending.removeAll()
        }
    }
}
