/// A subscription filter such as `stepcompass/+/steps` or `stepcompass/#`.
///
/// Matching follows MQTT 3.1.1 §4.7 and MQTT 5 §4.7: `+` matches exactly one level, `#` matches the
/// parent level and everything below it, and a filter that starts with a wildcard never matches a topic
/// that starts with `$` (so `#` does not see `$SYS/...`). Levels are compared byte for byte, as a broker
/// does (no Unicode normalisation).
public struct TopicFilter: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The filter as written.
    public let rawValue: String
    /// The filter's UTF-8 bytes, kept so that matching, which runs for every received message, walks
    /// bytes without splitting the topic into an array of levels.
    private let bytes: [UInt8]

    /// Creates a filter, checking the rules for wildcards.
    /// - Parameter rawValue: The filter text.
    /// - Throws: ``BusError/invalidTopic`` when `#` is not the last level, a wildcard shares a level with
    ///   other characters, or the filter is empty or contains NUL.
    public init(_ rawValue: String) throws(BusError) {
        guard !rawValue.isEmpty, rawValue.utf8.count <= 65_535, !rawValue.utf8.contains(0) else {
            throw BusError.invalidTopic(rawValue, reason: "a filter must be 1 to 65,535 bytes without NUL")
        }
        let levels = rawValue.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("#") && (level != "#" || index != levels.count - 1) {
                throw BusError.invalidTopic(rawValue, reason: "'#' must be a whole level and the last one")
            }
            if level.contains("+") && level != "+" {
                throw BusError.invalidTopic(rawValue, reason: "'+' must be a whole level")
            }
        }
        self.rawValue = rawValue
        self.bytes = Array(rawValue.utf8)
    }

    /// Creates a filter from a literal; a literal that breaks the wildcard rules is a programming error.
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    public var description: String { rawValue }

    public static func == (lhs: TopicFilter, rhs: TopicFilter) -> Bool { lhs.rawValue == rhs.rawValue }

    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// Whether the filter contains `+` or `#` (the initialiser ensures they only occur as whole levels).
    public var hasWildcards: Bool { bytes.contains(Self.plus) || bytes.contains(Self.hash) }

    /// Whether a topic name matches this filter.
    /// - Parameter topic: A topic name (no wildcards).
    public func matches(_ topic: String) -> Bool {
        if let result = topic.utf8.withContiguousStorageIfAvailable({ matches(utf8: $0) }) { return result }
        return Array(topic.utf8).withUnsafeBufferPointer { matches(utf8: $0) }
    }

    private static let slash = UInt8(ascii: "/")
    private static let plus = UInt8(ascii: "+")
    private static let hash = UInt8(ascii: "#")

    /// Walks the filter and the topic level by level in one pass, without allocating.
    private func matches(utf8 topic: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { filter in
            let filterCount = filter.count
            let topicCount = topic.count
            // A filter's first level that is a wildcard is the whole level (the initialiser checks it).
            if topicCount > 0, topic[0] == UInt8(ascii: "$"), filter[0] == Self.plus || filter[0] == Self.hash {
                return false
            }
            var f = 0  // start of the current filter level
            var t = 0  // start of the current topic level
            while true {
                if f < filterCount && filter[f] == Self.hash { return true }
                if f < filterCount && filter[f] == Self.plus {
                    f += 1
                    while t < topicCount && topic[t] != Self.slash { t += 1 }
                } else {
                    while f < filterCount && filter[f] != Self.slash {
                        guard t < topicCount, topic[t] == filter[f] else { return false }
                        f += 1
                        t += 1
                    }
                    guard t == topicCount || topic[t] == Self.slash else { return false }
                }
                // Both are at the end of a level: the end of the text or a '/'.
                let filterEnded = f == filterCount
                let topicEnded = t == topicCount
                if filterEnded { return topicEnded }
                f += 1
                if topicEnded {
                    // "a/#" matches "a": only a remaining "#" level matches no level at all.
                    return f < filterCount && filter[f] == Self.hash
                }
                t += 1
            }
        }
    }
}
