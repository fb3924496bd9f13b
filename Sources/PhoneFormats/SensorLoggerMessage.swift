public import Foundation

/// One Sensor Logger HTTP push / MQTT message (`tszheichoi/awesome-sensor-logger`, `PUSHING.md`):
///
/// ```json
/// {"messageId": 12, "sessionId": "…", "deviceId": "…",
///  "payload": [{"name": "accelerometer", "time": 1698501144401773000,
///               "values": {"x": 0.06, "y": -0.001, "z": -0.10}, "accuracy": 3}, …]}
/// ```
///
/// `time` is UTC nanoseconds. Readings of sensors this library does not use are skipped (counted in
/// ``ignoredCount``). Field values are read from `values`, or from the sample object itself when it
/// has no `values` object.
public struct SensorLoggerMessage: Sendable, Hashable {
    /// Increments per message; batches may still arrive out of order.
    public var messageId: Int64?
    /// The same for every message of one recording.
    public var sessionId: String?
    /// The same for every message from one phone (pass it through ``DeviceID/sanitized(_:)``).
    public var deviceId: String?
    /// The readings of known sensors, in payload order.
    public var readings: [SensorLoggerReading]
    /// How many payload entries named a sensor this library ignores.
    public var ignoredCount: Int

    /// Creates a message.
    public init(messageId: Int64?, sessionId: String?, deviceId: String?, readings: [SensorLoggerReading], ignoredCount: Int = 0) {
        self.messageId = messageId
        self.sessionId = sessionId
        self.deviceId = deviceId
        self.readings = readings
        self.ignoredCount = ignoredCount
    }

    /// Limits on the work one body may cause.
    public struct Limits: Sendable, Hashable {
        /// Largest accepted body, bytes.
        public var maximumBytes: Int
        /// Largest accepted number of payload entries.
        public var maximumSamples: Int

        /// Creates limits.
        public init(maximumBytes: Int = 16 << 20, maximumSamples: Int = 100_000) {
            self.maximumBytes = maximumBytes
            self.maximumSamples = maximumSamples
        }
    }

    /// Decodes a push body; the error's reason is one line for an HTTP 400 body, e.g.
    /// `payload is not an array` or `sample 3 (accelerometer): values.x is missing` (sample numbers
    /// are zero-based payload indexes).
    public static func decode(_ body: Data, limits: Limits = Limits()) throws(PhoneFormatError) -> SensorLoggerMessage {
        guard !body.isEmpty else { throw PhoneFormatError("body is empty") }
        guard body.count <= limits.maximumBytes else {
            throw PhoneFormatError("body is too large (\(body.count) bytes; limit \(limits.maximumBytes))")
        }
        guard let root = try JSONValue.parse(body).object else { throw PhoneFormatError("body is not a JSON object") }
        guard let payloadValue = root["payload"], payloadValue != .null else { throw PhoneFormatError("payload is missing") }
        guard let payload = payloadValue.array else { throw PhoneFormatError("payload is not an array") }
        guard payload.count <= limits.maximumSamples else {
            throw PhoneFormatError("payload has \(payload.count) samples (limit \(limits.maximumSamples))")
        }
        var readings: [SensorLoggerReading] = []
        readings.reserveCapacity(payload.count)
        var ignored = 0
        for (index, entry) in payload.enumerated() {
            guard let sample = entry.object else { throw PhoneFormatError("sample \(index) is not an object") }
            guard let name = sample["name"]?.string else {
                throw PhoneFormatError("sample \(index): name is \(sample["name"] == nil ? "missing" : "not a string")")
            }
            guard SensorLoggerReading.knownNames.contains(name.lowercased()) else {
                ignored += 1
                continue
            }
            let label = "sample \(index) (\(name))"
            let nanoseconds: Int64
            do throws(PhoneFormatError) {
                nanoseconds = try timeNanoseconds(sample["time"])
            } catch {
                throw PhoneFormatError("\(label): \(error.reason)")
            }
            let fields: [String: JSONValue]
            let prefix: String
            if let values = sample["values"] {
                guard let object = values.object else { throw PhoneFormatError("\(label): values is not an object") }
                fields = object
                prefix = "values."
            } else {
                fields = sample
                prefix = ""
            }
            do throws(PhoneFormatError) {
                if let reading = try SensorLoggerReading.make(
                    name: name, timeNanoseconds: nanoseconds, prefix: prefix,
                    field: { FieldLookup(fields[$0], lenient: true) }
                ) {
                    readings.append(reading)
                }
            } catch {
                throw PhoneFormatError("\(label): \(error.reason)")
            }
        }
        var messageId: Int64?
        switch root["messageId"] {
        case .integer(let value): messageId = value
        case .number(let value) where value.isFinite && value == value.rounded() && abs(value) < 9e15: messageId = Int64(value)
        case .string(let text): messageId = Int64(text)
        default: messageId = nil
        }
        return SensorLoggerMessage(
            messageId: messageId, sessionId: root["sessionId"]?.string, deviceId: root["deviceId"]?.string,
            readings: readings, ignoredCount: ignored
        )
    }

    /// Decodes a push body given as bytes.
    public static func decode(_ body: [UInt8], limits: Limits = Limits()) throws(PhoneFormatError) -> SensorLoggerMessage {
        try decode(Data(body), limits: limits)
    }

    /// Decodes a push body given as text.
    public static func decode(_ body: String, limits: Limits = Limits()) throws(PhoneFormatError) -> SensorLoggerMessage {
        try decode(Data(body.utf8), limits: limits)
    }

    private static func timeNanoseconds(_ value: JSONValue?) throws(PhoneFormatError) -> Int64 {
        let nanoseconds: Int64
        switch value {
        case nil, .null?:
            throw PhoneFormatError("time is missing")
        case .integer(let integer)?:
            nanoseconds = integer
        case .number(let number)?:
            guard number.isFinite, abs(number) < 9.2e18 else { throw PhoneFormatError("time is not finite") }
            nanoseconds = Int64(number)
        case .string(let text)?:
            guard let integer = Int64(text.trimmingCharacters(in: .whitespaces)) else { throw PhoneFormatError("time is not an integer") }
            nanoseconds = integer
        case let other?:
            throw PhoneFormatError("time is not a number (\(other.kindName))")
        }
        guard nanoseconds > 0 else { throw PhoneFormatError("time is not positive (\(nanoseconds))") }
        return nanoseconds
    }
}
