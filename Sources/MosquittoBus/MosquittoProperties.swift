import Bus
import CMosquitto

import struct Foundation.Data

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Converts between ``MessageProperties`` and libmosquitto's property lists.
enum MosquittoProperties {
    /// Builds a property list (nil when empty); the caller frees it with `mosquitto_property_free_all`.
    static func make(_ properties: MessageProperties) throws(MosquittoError) -> OpaquePointer? {
        var list: OpaquePointer? = nil
        do {
            if let topic = properties.responseTopic {
                try MosquittoError.check(
                    mosquitto_property_add_string(&list, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), topic),
                    "mosquitto_property_add_string(response-topic)")
            }
            if let data = properties.correlationData {
                let rc = data.withUnsafeBytes { raw in
                    mosquitto_property_add_binary(
                        &list, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), raw.baseAddress, UInt16(clamping: raw.count))
                }
                try MosquittoError.check(rc, "mosquitto_property_add_binary(correlation-data)")
            }
            for pair in properties.userProperties {
                try MosquittoError.check(
                    mosquitto_property_add_string_pair(&list, Int32(MQTT_PROP_USER_PROPERTY.rawValue), pair.name, pair.value),
                    "mosquitto_property_add_string_pair(user-property)")
            }
            if let expiry = properties.messageExpiryInterval {
                try MosquittoError.check(
                    mosquitto_property_add_int32(&list, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expiry),
                    "mosquitto_property_add_int32(message-expiry)")
            }
            if let type = properties.contentType {
                try MosquittoError.check(
                    mosquitto_property_add_string(&list, Int32(MQTT_PROP_CONTENT_TYPE.rawValue), type),
                    "mosquitto_property_add_string(content-type)")
            }
        } catch {
            mosquitto_property_free_all(&list)
            throw error
        }
        return list
    }

    /// Copies the properties of a received message; libmosquitto frees its list when the callback returns.
    static func read(_ list: OpaquePointer?) -> MessageProperties {
        var result = MessageProperties()
        guard let list else { return result }
        var cursor: OpaquePointer? = list
        while let property = cursor {
            switch UInt32(mosquitto_property_identifier(property)) {
            case MQTT_PROP_RESPONSE_TOPIC.rawValue:
                result.responseTopic = readString(property)
            case MQTT_PROP_CONTENT_TYPE.rawValue:
                result.contentType = readString(property)
            case MQTT_PROP_CORRELATION_DATA.rawValue:
                var value: UnsafeMutableRawPointer? = nil
                var length: UInt16 = 0
                if mosquitto_property_read_binary(property, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &value, &length, false) != nil {
                    result.correlationData = value.map { Data(bytes: $0, count: Int(length)) } ?? Data()
                    free(value)
                }
            case MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue:
                var value: UInt32 = 0
                if mosquitto_property_read_int32(property, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), &value, false) != nil {
                    result.messageExpiryInterval = value
                }
            case MQTT_PROP_USER_PROPERTY.rawValue:
                var name: UnsafeMutablePointer<CChar>? = nil
                var value: UnsafeMutablePointer<CChar>? = nil
                if mosquitto_property_read_string_pair(property, Int32(MQTT_PROP_USER_PROPERTY.rawValue), &name, &value, false) != nil {
                    result.userProperties.append(
                        UserProperty(name.map { String(cString: $0) } ?? "", value.map { String(cString: $0) } ?? ""))
                    free(name)
                    free(value)
                }
            default:
                break
            }
            cursor = mosquitto_property_next(property)
        }
        return result
    }

    private static func readString(_ property: OpaquePointer) -> String? {
        var value: UnsafeMutablePointer<CChar>? = nil
        let identifier = mosquitto_property_identifier(property)
        guard mosquitto_property_read_string(property, identifier, &value, false) != nil, let value else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
