/// The marker service's retained `stepcompass/markers/status`: written by `stepcompass-markers`, read by the
/// dashboard and the client.
///
/// The service writes every field (null when it does not apply) so a user reading it with `mosquitto_sub` sees the
/// whole shape; a reader needs only `state` and shows what else is there.
public struct MarkersStatusMessage: Codable, Sendable, Hashable {
    /// `loading`, `ready` or `failed` (``loading``, ``ready``, ``failed``); a reader keeps any other as it came.
    public var state: String
    /// Markers in service.
    public var count: Int?
    /// Features of the document in service that were rejected.
    public var rejected: Int?
    /// The configured URL or path.
    public var source: String?
    /// True while the markers in service come from the disk cache, not from a fetch of this run.
    public var fromCache: Bool?
    /// When the markers in service were last fetched or confirmed (a 304); null before any.
    public var updatedAt: String?
    /// The last fetch's failure; null after a success (the last good markers stay in service).
    public var error: ErrorReply.Body?
    /// When the next attempt is due after a failure; null otherwise.
    public var retryAt: String?

    public static let loading = "loading"
    public static let ready = "ready"
    public static let failed = "failed"

    public init(
        state: String, count: Int? = nil, rejected: Int? = nil, source: String? = nil, fromCache: Bool? = nil,
        updatedAt: String? = nil, error: ErrorReply.Body? = nil, retryAt: String? = nil
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

    enum CodingKeys: String, CodingKey {
        case state, count, rejected, source, fromCache, updatedAt, error, retryAt
    }

    /// Every field, null when absent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(count, forKey: .count)
        try container.encode(rejected, forKey: .rejected)
        try container.encode(source, forKey: .source)
        try container.encode(fromCache, forKey: .fromCache)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(error, forKey: .error)
        try container.encode(retryAt, forKey: .retryAt)
    }
}
