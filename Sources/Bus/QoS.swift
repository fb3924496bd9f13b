/// MQTT quality of service: how hard the broker and client try to deliver a message.
public enum QoS: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    /// Fire and forget: the message may be lost, never duplicated.
    case atMostOnce = 0
    /// Acknowledged: the message arrives, possibly more than once.
    case atLeastOnce = 1
    /// Four-way handshake: the message arrives exactly once.
    case exactlyOnce = 2

    public static func < (lhs: QoS, rhs: QoS) -> Bool { lhs.rawValue < rhs.rawValue }
}
