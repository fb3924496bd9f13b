/// A `stepcompass/activity/history` request: a device's steps per `minute`, `hour` or `day` in [`from`, `to`),
/// plus `replyTo` and `correlationId` for MQTT 3.1.1 clients. Sent by the dashboard and the client, read by
/// `stepcompass-activity` (which checks the values).
public struct HistoryRequest: Codable, Sendable, Hashable {
    public var device: String
    /// ISO 8601.
    public var from: String
    /// ISO 8601.
    public var to: String
    /// `minute`, `hour` or `day`.
    public var granularity: String
    /// MQTT 3.1.1 only: the topic of the reply.
    public var replyTo: String?
    public var correlationId: CorrelationID?

    public init(device: String, from: String, to: String, granularity: String, replyTo: String? = nil, correlationId: CorrelationID? = nil) {
        self.device = device
        self.from = from
        self.to = to
        self.granularity = granularity
        self.replyTo = replyTo
        self.correlationId = correlationId
    }
}

/// A reply to a history request: the buckets with steps, oldest first, or an error (`badRequest`, `unavailable`).
/// Written by `stepcompass-activity` (an error reply as ``ErrorReply``), read by the dashboard and the client.
public struct HistoryReply: Codable, Sendable, Hashable {
    /// One bucket: its start in UTC (ISO 8601) and its steps.
    public struct Bucket: Codable, Sendable, Hashable {
        public var start: String
        public var steps: Int64

        public init(start: String, steps: Int64) {
            self.start = start
            self.steps = steps
        }
    }

    public var device: String?
    public var granularity: String?
    /// The IANA time zone the hours and days are counted in.
    public var timeZone: String?
    public var buckets: [Bucket]?
    /// An error reply's error.
    public var error: ErrorReply.Body?
    /// Echoed only when the request carried one.
    public var correlationId: CorrelationID?

    public init(
        device: String?, granularity: String?, timeZone: String?, buckets: [Bucket]?, error: ErrorReply.Body? = nil,
        correlationId: CorrelationID? = nil
    ) {
        self.device = device
        self.granularity = granularity
        self.timeZone = timeZone
        self.buckets = buckets
        self.error = error
        self.correlationId = correlationId
    }
}
