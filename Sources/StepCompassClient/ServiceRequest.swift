public import Bus
public import Foundation
public import ServiceRuntime

/// A service that answers requests, as the client's messages name it.
public struct AnsweringService: Sendable, Hashable {
    /// How a sentence names it: `the activity service`.
    public let name: String
    /// The program to check is running: `stepcompass-activity`.
    public let program: String

    public init(name: String, program: String) {
        self.name = name
        self.program = program
    }

    /// `activity/history`.
    public static let activity = AnsweringService(name: "the activity service", program: "stepcompass-activity")
    /// `markers/nearest`.
    public static let markers = AnsweringService(name: "the marker service", program: "stepcompass-markers")
    /// `journal/walks`.
    public static let journal = AnsweringService(name: "the journal", program: "stepcompass-journal")
}

/// One request to a service and its reply, as every request/response topic of the contract works
/// (`markers/nearest`, `activity/history`, `journal/walks`).
///
/// The request carries an MQTT 5 response topic and correlation data (so `mosquitto_rr` and the bus's `respond`
/// work), and the contract's `replyTo`/`correlationId` payload fields, so the same client works over MQTT 3.1.1. The
/// reply topic is the client's own level under `replies/`.
struct ServiceRequest {
    let bus: any MessageBus
    let topics: Topics
    let timeout: Duration

    /// Publishes a request (QoS 1, `application/json`) and waits for its reply.
    /// - Parameters:
    ///   - topic: The request topic.
    ///   - replyLevel: The last level of the reply topic (`history`, `walks`).
    ///   - service: Who answers, for the "is it running?" message.
    ///   - payload: The request's body for a `replyTo` topic and a `correlationId`.
    /// - Returns: The reply's bytes.
    /// - Throws: ``StepCompassClientError/Code/noReply`` when no reply comes within ``timeout``; a `BusError` when
    ///   the request cannot be sent.
    func send(
        to topic: String, replyLevel: String, from service: AnsweringService,
        payload: (_ replyTo: String, _ correlationId: String) -> Data
    ) async throws -> Data {
        let replyTopic = "\(topics.replies)/\(ReplyTopic.level(for: bus.clientID))/\(replyLevel)"
        let correlation = UUID().uuidString
        var request = BusMessage(topic: topic, payload: payload(replyTopic, correlation), qos: .atLeastOnce)
        request.properties.contentType = "application/json"
        let found: BusMessage?
        do {
            found = try await bus.request(request, replyTopic: replyTopic, correlation: correlation, timeout: timeout)
        } catch let error as BusError where error.code == .timeout {
            found = nil
        }
        guard let found else {
            throw StepCompassClientError(.noReply, "no reply from \(service.name) within \(timeout.secondsText): is \(service.program) running?")
        }
        return found.payload
    }

    /// A request body as the contract writes JSON: sorted keys, slashes as they are.
    static func encode(_ body: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(body)) ?? Data()
    }
}

extension ErrorReply.Body {
    /// ``StepCompassClientError/Code/errorReply`` with the service's words: `the journal answered: ... (notFound)`.
    func error(from service: AnsweringService) -> StepCompassClientError {
        StepCompassClientError(.errorReply, "\(service.name) answered: \(message) (\(code))")
    }
}
