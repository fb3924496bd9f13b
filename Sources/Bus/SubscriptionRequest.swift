/// One filter of a subscription and the highest QoS at which to receive its messages.
public struct SubscriptionRequest: Sendable, Hashable {
    public var filter: TopicFilter
    public var qos: QoS

    public init(_ filter: TopicFilter, qos: QoS = .atLeastOnce) {
        self.filter = filter
        self.qos = qos
    }
}
