/// One filter of a subscription, the highest QoS at which to receive its messages, and whether this client's own
/// messages come back through it.
public struct SubscriptionRequest: Sendable, Hashable {
    public var filter: TopicFilter
    public var qos: QoS
    /// MQTT 5's *No Local* subscription option: the broker does not send this client the messages it published
    /// itself (live ones; a retained message it published earlier still arrives when it subscribes). A service that
    /// subscribes to topics it also publishes on (the position service reads `+/position` to restore from it) sets
    /// it so that its own output does not double its inbound traffic.
    ///
    /// Honoured by a broker over MQTT 5 and by the in-memory twin. MQTT 3.1.1 has no such option: over a 3.1.1
    /// connection the flag is not sent and the client's own messages arrive as usual, so a subscriber that sets it
    /// must still tell its own messages apart (it can: they are live, not retained). When two subscriptions of one
    /// client use the same filter, the broker has one subscription for both: the client sends it No Local only if both
    /// ask for it, which MQTT 5 brokers (and the in-memory twin) apply, but mosquitto 2.0 keeps the No Local of the
    /// filter's first subscription (it updates only the QoS), so do not mix the two on one filter.
    public var noLocal: Bool

    public init(_ filter: TopicFilter, qos: QoS = .atLeastOnce, noLocal: Bool = false) {
        self.filter = filter
        self.qos = qos
        self.noLocal = noLocal
    }
}
