/// Sees a bus's traffic, for metrics: what it received (a burst at a time), what it published, and its connection.
///
/// `MosquittoBus` calls it from its network thread and from publishing tasks: an implementation must be quick and
/// must not block (count, and return).
public protocol BusObserver: Sendable {
    /// A burst of messages read from the broker, before they are handed to subscriptions.
    func received(_ messages: [BusMessage])
    /// A message handed to the broker.
    func published(_ message: BusMessage)
    /// The connection came up (`true`: once per CONNACK accepted) or was lost (`false`).
    func connection(up: Bool)
}
