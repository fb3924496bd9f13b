public import Bus
import CMosquitto

/// A libmosquitto error: the raw `MOSQ_ERR_*` value, the C function that returned it, and its message.
///
/// Like swift-nio's `IOError`, it keeps the failing function's name, so a log line says exactly which
/// call failed. ``busError`` maps it onto the bus-level codes services switch on.
public struct MosquittoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `MOSQ_ERR_*` value.
    public let code: Int32
    /// The libmosquitto function that returned it.
    public let function: String
    /// `mosquitto_strerror(code)`.
    public let message: String

    /// Creates an error from a libmosquitto return code.
    public init(code: Int32, function: String) {
        self.code = code
        self.function = function
        self.message = Self.describe(code: code)
    }

    /// The message of a `MOSQ_ERR_*` code (`mosquitto_strerror`).
    public static func describe(code: Int32) -> String {
        let text = mosquitto_strerror(code).map { String(cString: $0) } ?? ""
        if text.isEmpty || (text == "Unknown error." && code != Int32(MOSQ_ERR_UNKNOWN.rawValue)) {
            // libmosquitto 2.0.11 (Debian 12) has no text for the codes added later in 2.0.x.
            return missingMessages[code] ?? "libmosquitto error \(code)"
        }
        return text
    }

    private static let missingMessages: [Int32: String] = [
        Int32(MOSQ_ERR_PLUGIN_DEFER.rawValue): "A plugin deferred the decision.",
        Int32(MOSQ_ERR_KEEPALIVE.rawValue): "The keep-alive interval was exceeded.",
        Int32(MOSQ_ERR_LOOKUP.rawValue): "The host name could not be resolved.",
        Int32(MOSQ_ERR_MALFORMED_PACKET.rawValue): "A malformed packet was received.",
        Int32(MOSQ_ERR_DUPLICATE_PROPERTY.rawValue): "A property was given more than once.",
        Int32(MOSQ_ERR_TLS_HANDSHAKE.rawValue): "The TLS handshake failed.",
        Int32(MOSQ_ERR_QOS_NOT_SUPPORTED.rawValue): "The requested QoS is not supported by the broker.",
        Int32(MOSQ_ERR_OVERSIZE_PACKET.rawValue): "The packet is larger than the broker accepts.",
        Int32(MOSQ_ERR_OCSP.rawValue): "The OCSP check of the broker's certificate failed.",
        Int32(MOSQ_ERR_TIMEOUT.rawValue): "The operation timed out.",
        Int32(MOSQ_ERR_RETAIN_NOT_SUPPORTED.rawValue): "Retained messages are not supported by the broker.",
        Int32(MOSQ_ERR_TOPIC_ALIAS_INVALID.rawValue): "The topic alias is invalid.",
        Int32(MOSQ_ERR_ADMINISTRATIVE_ACTION.rawValue): "The broker disconnected the client by administrative action.",
        Int32(MOSQ_ERR_ALREADY_EXISTS.rawValue): "The item already exists.",
    ]

    /// The message of an MQTT 5 reason code (`mosquitto_reason_string`), e.g. 135 "Not authorized".
    public static func describe(reasonCode: Int32) -> String {
        guard let text = mosquitto_reason_string(reasonCode) else { return "reason code \(reasonCode)" }
        return String(cString: text)
    }

    public var description: String { "\(function) failed: \(message) (MOSQ_ERR \(code))" }

    /// The bus-level error for this libmosquitto error.
    public var busError: BusError {
        let mapped: BusError.Code
        switch code {
        case Int32(MOSQ_ERR_NO_CONN.rawValue), Int32(MOSQ_ERR_CONN_LOST.rawValue):
            mapped = .notConnected
        case Int32(MOSQ_ERR_CONN_REFUSED.rawValue), Int32(MOSQ_ERR_ERRNO.rawValue), Int32(MOSQ_ERR_EAI.rawValue),
            Int32(MOSQ_ERR_TLS.rawValue), Int32(MOSQ_ERR_TLS_HANDSHAKE.rawValue), Int32(MOSQ_ERR_LOOKUP.rawValue):
            mapped = .connectionFailed
        case Int32(MOSQ_ERR_AUTH.rawValue), Int32(MOSQ_ERR_ACL_DENIED.rawValue):
            mapped = .notAuthorized
        case Int32(MOSQ_ERR_PAYLOAD_SIZE.rawValue), Int32(MOSQ_ERR_OVERSIZE_PACKET.rawValue):
            mapped = .payloadTooLarge
        case Int32(MOSQ_ERR_INVAL.rawValue), Int32(MOSQ_ERR_MALFORMED_UTF8.rawValue):
            mapped = .invalidTopic
        default:
            mapped = .protocolError
        }
        return BusError(mapped, description)
    }

    /// Throws when a libmosquitto call did not return `MOSQ_ERR_SUCCESS`.
    static func check(_ code: Int32, _ function: String) throws(MosquittoError) {
        if code != Int32(MOSQ_ERR_SUCCESS.rawValue) {
            throw MosquittoError(code: code, function: function)
        }
    }
}
