/// A bus message the dashboard could not read: which kind of message, and why.
public struct DashboardInputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of message, such as `heading` or `markers status`.
    public var what: String
    /// What was wrong with it, in words.
    public var reason: String

    public init(what: String, reason: String) {
        self.what = what
        self.reason = reason
    }

    public var description: String { "unreadable \(what) message: \(reason)" }
}
