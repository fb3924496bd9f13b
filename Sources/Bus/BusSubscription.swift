/// The messages of one subscription, in the order in which the broker delivered them.
///
/// A subscription with several filters receives each matching message once, so a service that must
/// handle one device's messages in arrival order across topics subscribes to all of them together.
/// Iteration ends when the subscription is removed or the bus is closed. Cancelling the task that
/// iterates ends that iteration only; the subscription keeps its messages for the next one.
public struct BusSubscription: AsyncSequence, Sendable {
    public typealias Element = BusMessage
    public typealias Failure = Never

    /// An identifier, unique within its bus, used to unsubscribe.
    public let id: Int
    /// The filters this subscription receives.
    public let requests: [SubscriptionRequest]
    private let channel: MessageChannel

    /// Creates a subscription over a channel; bus implementations call this.
    public init(id: Int, requests: [SubscriptionRequest], channel: MessageChannel) {
        self.id = id
        self.requests = requests
        self.channel = channel
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let channel: MessageChannel

        public mutating func next() async -> BusMessage? {
            await channel.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> BusMessage? {
            await channel.next()
        }
    }

    /// The messages buffered now, up to `limit`, in delivery order; waits while there are none. Empty when the
    /// subscription has ended or the calling task is cancelled (like iteration, that does not end the
    /// subscription). A consumer of tens of thousands of messages a second that handles a batch per actor hop
    /// instead of a message per hop spends much less on task switches.
    public func nextBatch(limit: Int = 256) async -> [BusMessage] {
        await channel.nextBatch(limit: limit)
    }

    /// The messages delivered to this subscription and not yet read: its backlog.
    public var bufferedCount: Int { channel.bufferedCount }

    /// The messages this subscription lost because its buffer was full (its consumer fell behind).
    public var droppedCount: Int { channel.droppedCount }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channel: channel)
    }
}
