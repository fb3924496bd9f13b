/// How a client's subscription buffers are doing: the backlog now and what was dropped so far, for metrics.
///
/// A subscription's buffer (its ``MessageChannel``) fills when its consumer falls behind the broker; a full one
/// drops newer messages. Messages that match no subscription yet are held for a later one (a persistent session's
/// queued messages arrive before the service subscribes again), up to a limit of their own.
public struct SubscriptionBufferStatistics: Sendable, Hashable {
    /// The subscriptions open now.
    public var subscriptions: Int
    /// The messages delivered and not yet read, all subscriptions together.
    public var buffered: Int
    /// The messages held because no subscription matches them yet.
    public var held: Int
    /// Messages dropped so far because a subscription's buffer was full.
    public var droppedFull: Int
    /// Held messages dropped so far because the hold buffer was full.
    public var droppedUnmatched: Int

    public init(subscriptions: Int = 0, buffered: Int = 0, held: Int = 0, droppedFull: Int = 0, droppedUnmatched: Int = 0) {
        self.subscriptions = subscriptions
        self.buffered = buffered
        self.held = held
        self.droppedFull = droppedFull
        self.droppedUnmatched = droppedUnmatched
    }
}

/// A bus that reports its subscription buffers (both of this package's buses do), so a service's runtime can
/// publish them as metrics without the bus knowing about metrics.
public protocol SubscriptionBufferReporting: Sendable {
    /// The buffers now; the drop counts only grow while the bus lives.
    var subscriptionBuffers: SubscriptionBufferStatistics { get }
}
