public import Bus
import Foundation
public import Logging
import Metrics

/// Reports rejected inputs on `stepcompass/errors/{service}` and in the log; the service goes on.
///
/// One report per rejected message, `{"timestamp", "topic", "error", "payload"}`, with the payload cut
/// to its first 256 bytes. Publishing a report never throws into the caller: a report that cannot be
/// published is logged instead, so a bad input can never stop a service.
public struct ErrorReporter: Sendable {
    private let bus: any MessageBus
    private let topic: String
    private let errorRoot: String
    private let logger: Logger
    private let topics: Topics
    /// The service's instruments: `stepcompass_rejected_inputs_total` by kind, each counter made once.
    private let metrics: ServiceInstruments

    /// - Parameter metrics: The service's instruments (its context's).
    public init(bus: any MessageBus, topics: Topics, service: String, logger: Logger, metrics: ServiceInstruments) {
        self.bus = bus
        self.topic = topics.errors(service)
        self.errorRoot = topics.errors("")
        self.logger = logger
        self.topics = topics
        self.metrics = metrics
    }

    struct Report: Encodable {
        let timestamp: String
        let topic: String
        let error: String
        let payload: String
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
        logger.notice("rejected a message", metadata: ["mqtt.topic": "\(message.topic)", "reason": "\(reason)"])
        metrics.counter("stepcompass_rejected_inputs_total", "kind", topics.kind(of: message.topic)).increment()
        let cut = message.payload.prefix(256)
        let report = Report(
            timestamp: Timestamp.format(Date()), topic: message.topic, error: reason,
            payload: String(decoding: cut, as: UTF8.self))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let payload = try? encoder.encode(report) else { return }
        do {
            try await bus.publish(BusMessage(topic: topic, payload: payload, qos: .atMostOnce))
        } catch {
            logger.warning("could not publish an error report", metadata: ["error": "\(error)"])
        }
    }
}
