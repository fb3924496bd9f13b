public import Bus
public import Foundation
public import ServiceRuntime

/// Asks the activity service for a device's step history (`activity/history`) and waits for its reply.
///
/// Like every request of the client (``NearestRequester``, ``JournalRequester``): an MQTT 5 response topic and
/// correlation data, and the contract's `replyTo`/`correlationId` payload fields for MQTT 3.1.1.
public struct HistoryRequester: Sendable {
    public let bus: any MessageBus
    public let topics: Topics
    /// How long to wait for the reply.
    public var timeout: Duration

    /// Creates a requester over a connected bus.
    public init(bus: any MessageBus, topics: Topics, timeout: Duration = .seconds(5)) {
        self.bus = bus
        self.topics = topics
        self.timeout = timeout
    }

    /// `stepcompass/activity/history`.
    public var historyTopic: String { topics.activityHistory }

    /// Sends the query and returns the reply (which may be an error reply: see ``HistoryResult/buckets()``).
    /// - Throws: ``StepCompassClientError/Code/noReply`` when no reply comes within ``timeout``,
    ///   ``StepCompassClientError/Code/unreadableReply`` when the reply is not the contract's JSON.
    public func send(_ query: HistoryQuery) async throws -> HistoryResult {
        let reply = try await ServiceRequest(bus: bus, topics: topics, timeout: timeout)
            .send(to: historyTopic, replyLevel: "history", from: .activity) { query.payload(replyTo: $0, correlationId: $1) }
        return try HistoryResult(payload: reply)
    }
}

/// The activity service's history reply, raw and decoded.
public struct HistoryResult: Sendable, Hashable {
    /// The reply's bytes, as received.
    public let payload: Data
    let reply: HistoryReply

    /// Decodes a reply payload.
    /// - Throws: ``StepCompassClientError/Code/unreadableReply``.
    public init(payload: Data) throws(StepCompassClientError) {
        self.payload = payload
        let decoded: HistoryReply
        do {
            decoded = try JSONDecoder().decode(HistoryReply.self, from: payload)
        } catch {
            throw Self.unreadable(payload)
        }
        guard decoded.error != nil || decoded.buckets != nil else { throw Self.unreadable(payload) }
        reply = decoded
    }

    private static func unreadable(_ payload: Data) -> StepCompassClientError {
        StepCompassClientError(
            .unreadableReply,
            "the activity service's reply is not a history reply: \(String(decoding: payload.prefix(200), as: UTF8.self))")
    }

    /// The time zone the hours and days are counted in (UTC when the reply names none).
    public var timeZone: String { reply.timeZone ?? "UTC" }

    /// The buckets, oldest first.
    /// - Throws: ``StepCompassClientError/Code/errorReply`` with the service's message for an error reply.
    public func buckets() throws(StepCompassClientError) -> [HistoryReply.Bucket] {
        if let error = reply.error { throw error.error(from: .activity) }
        return reply.buckets ?? []
    }

    /// `start,steps` and a line per bucket.
    public func csv() throws(StepCompassClientError) -> [String] {
        ["start,steps"] + (try buckets()).map { "\($0.start),\($0.steps)" }
    }

    /// A table: each bucket's start in the device's time zone and its steps, then the total.
    public func table() throws(StepCompassClientError) -> [String] {
        let buckets = try buckets()
        let formatter = ClientText.dateFormatter(
            reply.granularity == "day" ? "yyyy-MM-dd" : "yyyy-MM-dd HH:mm",
            zone: TimeZone(identifier: timeZone) ?? .gmt)
        let header = ["start (\(timeZone))", "steps"]
        guard !buckets.isEmpty else { return ClientText.table(header, [], rightAligned: [1]) + ["(no steps in this range)"] }
        let rows = buckets.map { bucket in
            [Timestamp.parse(bucket.start).map(formatter.string(from:)) ?? bucket.start, ActivityMessage.grouped(bucket.steps)]
        }
        let total = ActivityMessage.grouped(buckets.reduce(0) { $0 + $1.steps })
        return ClientText.table(header, rows + [["total", total]], rightAligned: [1])
    }
}
