import Bus
import Foundation
import ServiceRuntime

/// Asks a service over the bus and waits for its answer (MQTT 5 request/response, the reply under
/// `stepcompass/replies/{client}/` where the ACL lets the services answer): the activity service's step history,
/// the journal's walks, the marker service's nearest markers.
struct ServiceRequester: Sendable {
    let bus: any MessageBus
    let topics: Topics
    let timeout: Duration

    /// Sorted keys, as the requests were always written.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    enum Outcome: Sendable {
        /// The reply's payload (the service's answer or its `{"error": {"code", "message"}}`).
        case reply(Data)
        case timedOut
    }

    /// Publishes `body` (one of the contract's requests) as JSON on `topic` and waits for the reply.
    /// - Throws: When the request cannot be encoded or published (the bus is away).
    func request(_ topic: String, _ body: some Encodable) async throws -> Outcome {
        let payload = try Self.encoder.encode(body)
        let replyTopic = "\(topics.replies)/\(bus.clientID)/\(UUID().uuidString)"
        let request = BusMessage(topic: topic, payload: payload, qos: .atLeastOnce)
        do {
            return .reply(try await bus.request(request, replyTopic: replyTopic, timeout: timeout).payload)
        } catch let error as BusError where error.code == .timeout {
            return .timedOut
        }
    }
}
