/// Rules for topic names that messages are published to.
public enum TopicName {
    /// Checks that a topic name can be published to: not empty, at most 65,535 UTF-8 bytes, no NUL and
    /// no wildcard characters.
    /// - Parameter topic: The topic name.
    /// - Throws: ``BusError/invalidTopic`` with the reason.
    public static func validate(_ topic: String) throws(BusError) {
        let utf8 = topic.utf8
        guard !utf8.isEmpty, utf8.count <= 65_535 else {
            throw BusError.invalidTopic(topic, reason: "a topic name must be 1 to 65,535 bytes")
        }
        // One pass: every publish checks its topic.
        guard utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 == 0 }) else { return }
        if utf8.contains(UInt8(ascii: "+")) || utf8.contains(UInt8(ascii: "#")) {
            throw BusError.invalidTopic(topic, reason: "a topic name must not contain '+' or '#'")
        }
        throw BusError.invalidTopic(topic, reason: "a topic name must not contain NUL")
    }
}
