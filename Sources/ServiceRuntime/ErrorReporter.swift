public import Bus
import Foundation
public import Logging
import Metrics

/// Reports rejected inputs on `stepcompass/errors/{service}` and in the log; the service goes on.
///
/// One report per rejected message, `{"timestamp", "topic", "error", "payload"}`, with the payload cut
/// to its first 256 bytes. Publishing a report never throws into the caller: a report that cannot be
/// published is logged instead, so a bad input can never stop a service.
///
/// Reports are rate-limited (``Limit``: a burst of 20, then 10 a second, by default): under a flood of bad
/// messages the service spends its time on good ones, and the error topic and the log stay readable. Every
/// rejection is still counted (`stepcompass_rejected_inputs_total`); the reports left out are counted in
/// `stepcompass_error_reports_dropped_total`, and the next report says how many were left out before it
/// (`"dropped"`).
public struct ErrorReporter: Sendable {
    /// How many reports may go out: a token bucket of ``burst`` reports refilled at ``perSecond``.
    public struct Limit: Sendable {
        /// The most reports published back to back.
        public var burst: Int
        /// Reports a second once the burst is spent.
        public var perSecond: Double

        public init(burst: Int, perSecond: Double) {
            self.burst = burst
            self.perSecond = perSecond
        }

        /// 20 at once, then 10 a second: far above what a misconfigured phone sends, far below a flood.
        public static let defaults = Limit(burst: 20, perSecond: 10)
    }

    private let bus: any MessageBus
    private let topic: String
    private let errorRoot: String
    private let logger: Logger
    private let topics: Topics
    /// The service's instruments: `stepcompass_rejected_inputs_total` by kind, each counter made once.
    private let metrics: ServiceInstruments
    private let droppedReports: Counter
    private let clock: ServiceClock
    /// The bucket and the reports left out since the last one published.
    private let gate: LockedValue<(bucket: TokenBucket, dropped: Int)>

    /// - Parameters:
    ///   - metrics: The service's instruments (its context's).
    ///   - clock: The clock the rate limit counts time on (its context's).
    ///   - limit: How many reports may go out.
    public init(
        bus: any MessageBus, topics: Topics, service: String, logger: Logger, metrics: ServiceInstruments,
        clock: ServiceClock = .continuous, limit: Limit = .defaults
    ) {
        self.bus = bus
        self.topic = topics.errors(service)
        self.errorRoot = topics.errors("")
        self.logger = logger
        self.topics = topics
        self.metrics = metrics
        self.droppedReports = metrics.counter("stepcompass_error_reports_dropped_total")
        self.clock = clock
        let bucket = TokenBucket(capacity: Double(limit.burst), perSecond: limit.perSecond, now: clock.now.offset.inSeconds)
        self.gate = LockedValue((bucket: bucket, dropped: 0))
    }

    /// One encoder for every report (JSONEncoder is safe to share once configured).
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    struct Report: Encodable {
        let timestamp: String
        let topic: String
        let error: String
        let payload: String
        /// Reports left out by the rate limit since the previous one; absent when none was.
        let dropped: Int?
    }

    /// Reports a rejected message.
    ///
    /// An error report is never itself reported: a filter such as `stepcompass/+/position` also matches
    /// `stepcompass/errors/position`, and reporting the report would feed the service its own output in
    /// a loop.
    public func reject(_ message: BusMessage, reason: String) async {
        guard !message.topic.hasPrefix(errorRoot) else {
            logger.debug("ignored an error report", metadata: ["mqtt.topic": "\(message.topic)"])
            return
        }
        metrics.counter("stepcompass_rejected_inputs_total", kindOf: message.topic).increment()
        let instant = clock.now
        let now = instant.offset.inSeconds
        let admitted: Int? = gate.withLock { state in
            guard state.bucket.take(now: now) == 0 else {
                state.dropped += 1
                return nil
            }
            defer { state.dropped = 0 }
            return state.dropped
        }
        guard let droppedBefore = admitted else {
            droppedReports.increment()
            return
        }
        var metadata: Logger.Metadata = ["mqtt.topic": "\(message.topic)", "reason": "\(reason)"]
        if droppedBefore > 0 { metadata["reportsDropped"] = "\(droppedBefore)" }
        logger.notice("rejected a message", metadata: metadata)
        let cut = message.payload.prefix(256)
        let report = Report(
            timestamp: Timestamp.format(clock.date(at: instant)), topic: message.topic, error: reason,
            payload: String(decoding: cut, as: UTF8.self), dropped: droppedBefore > 0 ? droppedBefore : nil)
        guard let payload = try? Self.encoder.encode(report) else { return }
        do {
            try await bus.publish(BusMessage(topic: topic, payload: payload, qos: .atMostOnce))
        } catch {
            logger.warning("could not publish an error report", metadata: ["error": "\(error)"])
        }
    }
}
