/// A subscription filter such as `stepcompass/+/steps` or `stepcompass/#`.
///
/// Matching follows MQTT 3.1.1 §4.7 and MQTT 5 §4.7: `+` matches exactly one level, `#` matches the
/// parent level and everything below it, and a filter that starts with a wildcard never matches a topic
/// that starts with `$` (so `#` does not see `$SYS/...`).
public struct TopicFilter: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The filter as written.
    public let rawValue: String
    private let levels: [Substring]

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
        self.levels = levels
    }

    /// Creates a filter from a literal; a literal that breaks the wildcard rules is a programming error.
    public init(stringLiteral value: String) {
        do { try self.init(value) } catch { preconditionFailure("\(error)") }
    }

    public var description: String { rawValue }

    /// Whether the filter contains `+` or `#`.
    public var hasWildcards: Bool { levels.contains { $0 == "+" || $0 == "#" } }

    /// Whether a topic name matches this filter.
    /// - Parameter topic: A topic name (no wildcards).
    public func matches(_ topic: String) -> Bool {
        if topic.hasPrefix("$"), let first = levels.first, first == "+" || first == "#" {
            return false
        }
        var topicLevels = topic.split(separator: "/", omittingEmptySubsequences: false)[...]
        for level in levels {
            if level == "#" { return true }
            guard let next = topicLevels.popFirst() else { return false }
            if level != "+" && level != next { return false }
        }
        return topicLevels.isEmpty
    }
}
