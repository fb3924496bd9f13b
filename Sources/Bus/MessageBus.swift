/// The small protocol every StepCompass service sees: publish, subscribe, unsubscribe.
///
/// Two implementations keep the same semantics: `MosquittoBus` (libmosquitto, a real broker) and
/// `InMemoryBus` (unit tests). `BusTesting`'s conformance suite runs against both, so the twin cannot
/// drift from the real thing. Request/response is built on top (see ``MessageBus/request(_:replyTopic:timeout:)``).
public protocol MessageBus: Sendable {
    /// A stable identifier of this client, used for its persistent session.
    var clientID: String { get }

    /// Publishes a message.
    ///
    /// Suspends while the number of unacknowledged messages is at the bus's cap (back-pressure), and until
    /// the bus is connected. Returns once the message is queued for the broker.
    /// - Parameter message: The message; its topic must be a valid topic name.
    func publish(_ message: BusMessage) async throws

    /// Subscribes to one or more filters as one stream.
    ///
    /// Returns once the broker has acknowledged every filter, so a message published after this returns
    /// reaches the subscription. Retained messages that match are delivered first, with `retain` set.
    /// Messages that arrive before any local subscription matches them (QoS 1 messages queued for a
    /// persistent session) are held and handed to the first subscription that matches them.
    /// - Parameter requests: The filters and their maximum QoS.
    func subscribe(to requests: [SubscriptionRequest]) async throws -> BusSubscription

    /// Ends a subscription: its stream finishes, and filters no other subscription uses are unsubscribed
    /// at the broker.
    func unsubscribe(_ subscription: BusSubscription) async throws

    /// Waits until every message published so far has been acknowledged (QoS 1/2) or written (QoS 0).
    func flush() async throws

    /// An executor that runs a task beside the bus's own I/O, for `withTaskExecutorPreference`, or nil when the bus
    /// has none.
    ///
    /// A task that prefers it handles what it receives and publishes its answer without a thread switch, as a C client
    /// answering in its message callback does. It must not block (no file or database I/O) and must do little per
    /// message: the bus reads nothing while it runs.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension MessageBus {
    /// None: tasks run where Swift puts them.
    public var taskExecutor: (any TaskExecutor)? { nil }

    /// Subscribes to one filter.
    public func subscribe(to filter: TopicFilter, qos: QoS = .atLeastOnce) async throws -> BusSubscription {
        try await subscribe(to: [SubscriptionRequest(filter, qos: qos)])
    }
}
