/// The marker service's retained `markers/status` message.
public struct MarkersStatusReport: Sendable, Hashable, Decodable {
    /// The `error` object of a failed fetch.
    public struct Failure: Sendable, Hashable, Codable {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// `loading`, `ready` or `failed`.
    public var state: String
    public var count: Int?
    public var rejected: Int?
    public var source: String?
    public var fromCache: Bool?
    public var updatedAt: String?
    public var error: Failure?
    public var retryAt: String?

    public init(state: String, count: Int? = nil, rejected: Int? = nil, source: String? = nil, fromCache: Bool? = nil,
                updatedAt: String? = nil, error: Failure? = nil, retryAt: String? = nil) {
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
