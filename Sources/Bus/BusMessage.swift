public import struct Foundation.Data

/// A message on the bus, published or received.
///
/// Received messages carry the QoS at which they were delivered (the lower of the publisher's and the
/// subscription's) and `retain` is true when the broker replays a retained message on subscribe.
public struct BusMessage: Sendable, Hashable {
    /// The topic name (no wildcards).
    public var topic: String
    /// The payload bytes; an empty payload with `retain` clears the topic's retained message.
    public var payload: Data
    /// The delivery guarantee.
    public var qos: QoS
    /// On publish: keep this as the topic's retained message. On receipt: this is a retained message
    /// replayed because of a new subscription.
    public var retain: Bool
    /// MQTT 5 properties.
    public var properties: MessageProperties

    /// Creates a message.
    public init(
        topic: String,
        payload: Data,
        qos: QoS = .atMostOnce,
        retain: Bool = false,
        properties: MessageProperties = MessageProperties()
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.properties = properties
    }

    /// Creates a message with a UTF-8 text payload.
    public init(
        topic: String,
        text: String,
        qos: QoS = .atMostOnce,
        retain: Bool = false,
        properties: MessageProperties = MessageProperties()
    ) {
        self.init(topic: topic, payload: Data(text.utf8), qos: qos, retain: retain, properties: properties)
    }

    /// The payload decoded as UTF-8, with invalid bytes replaced.
    public var text: String { String(decoding: payload, as: UTF8.self) }
}
