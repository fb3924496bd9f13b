/// The marker service's retained `markers/status` message.
public struct MarkersStatusReport: Sendable, Hashable, Decodable {
    /// `loading`, `ready` or `failed`.
    public var state: String
    public var count: Int?
    public var rejected: Int?
    public var source: String?
    public var fromCache: Bool?
    public var updatedAt: String?
    /// Why the last fetch failed (the last good markers stay in service).
    public var error: ReportedFailure?
    public var retryAt: String?

    public init(
        state: String, count: Int? = nil, rejected: Int? = nil, source: String? = nil, fromCache: Bool? = nil,
        updatedAt: String? = nil, error: ReportedFailure? = nil, retryAt: String? = nil
    ) {
        self.state = state
        self.count = count
        self.rejected = rejected
        self.source = source
        self.fromCache = fromCache
        self.updatedAt = updatedAt
        self.error = error
        self.retryAt = retryAt
    }
}
