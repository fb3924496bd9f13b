public import struct Foundation.Data

/// The MQTT 5 properties of a message that the bus carries end to end.
///
/// With an MQTT 3.1.1 connection these are not sent; request/response then falls back to fields in the
/// payload (see the contract's `replyTo` and `correlationId`).
public struct MessageProperties: Sendable, Hashable {
    /// Where a responder should publish its reply (MQTT 5 request/response).
    public var responseTopic: String?
    /// Opaque bytes that a responder echoes so the requester can pair a reply with its request.
    public var correlationData: Data?
    /// Application-defined name/value pairs, in order; names may repeat.
    public var userProperties: [UserProperty]
    /// Seconds after which the broker discards the message if it has not been delivered.
    public var messageExpiryInterval: UInt32?
    /// The MIME type of the payload, such as `application/json`.
    public var contentType: String?

    /// Creates properties; every one is optional.
    public init(
        responseTopic: String? = nil,
        correlationData: Data? = nil,
        userProperties: [UserProperty] = [],
        messageExpiryInterval: UInt32? = nil,
        contentType: String? = nil
    ) {
        self.responseTopic = responseTopic
        self.correlationData = correlationData
        self.userProperties = userProperties
        self.messageExpiryInterval = messageExpiryInterval
        self.contentType = contentType
    }

    /// Whether no property is set.
    public var isEmpty: Bool {
        responseTopic == nil && correlationData == nil && userProperties.isEmpty
            && messageExpiryInterval == nil && contentType == nil
    }
}

/// One MQTT 5 user property.
public struct UserProperty: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
