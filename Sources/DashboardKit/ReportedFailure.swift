/// The contract's error object, `{"code", "message"}`: a failed marker fetch in `markers/status`, or an
/// error reply to a nearest-markers request.
public struct ReportedFailure: Sendable, Hashable, Codable {
    /// A stable, machine-readable code (`notFound`, `http`, `timeout`, ...).
    public var code: String
    /// What happened, for a person.
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
