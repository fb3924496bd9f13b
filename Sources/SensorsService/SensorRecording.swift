public import Foundation

/// One line of a recording: `{"t": seconds since the recording started, "topic": suffix, "payload": {...}}`.
///
/// The suffix is the device topic without `stepcompass/{device}/` (`imu`, `simulation/truth`, ...), so a recording
/// can be replayed as any device.
public struct RecordedMessage: Sendable, Hashable {
    /// Seconds since the recording started.
    public var t: Double
    /// The device topic's suffix, such as `steps`.
    public var topic: String
    /// The payload as recorded: a JSON object.
    public var payload: Data

    /// Creates a record.
    /// - Parameters:
    ///   - t: Seconds since the recording started.
    ///   - topic: The device topic's suffix.
    ///   - payload: The payload, a JSON object.
    public init(t: Double, topic: String, payload: Data) {
        self.t = t
        self.topic = topic
        self.payload = payload
    }

    /// The JSON line (without its newline); nil when the payload is not a JSON object.
    public func line() -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
        let line: [String: Any] = ["t": t, "topic": topic, "payload": object]
        return try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Parses one line of a recording.
    /// - Parameters:
    ///   - line: The line's bytes.
    ///   - number: The line number, for the error message.
    /// - Throws: ``SensorsError/Code/unreadableRecording`` naming the line and what is wrong with it.
    public init(line: Data, number: Int) throws {
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else {
            throw SensorsError(.unreadableRecording, "line \(number) is not a JSON object")
        }
        guard let t = (object["t"] as? NSNumber)?.doubleValue, t.isFinite, t >= 0 else {
            throw SensorsError(.unreadableRecording, "line \(number): 't' must be a number of seconds ≥ 0")
        }
        guard let topic = object["topic"] as? String, !topic.isEmpty, !topic.contains("+"), !topic.contains("#") else {
            throw SensorsError(.unreadableRecording, "line \(number): 'topic' must be a topic suffix such as \"steps\"")
        }
        guard let payload = object["payload"] as? [String: Any],
            let data = try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            throw SensorsError(.unreadableRecording, "line \(number): 'payload' must be a JSON object")
        }
        self.init(t: t, topic: topic, payload: data)
    }
}
