public import Bus
public import Foundation
import Logging

extension BusServiceContext {
    /// Answers a request as the contract's request/response says: to its MQTT 5 response topic (with its correlation
    /// data) when it has one, else to the payload's `replyTo` (MQTT 3.1.1 clients). A request with neither, or with a
    /// `replyTo` that is not a topic, is reported on the error topic; a reply that cannot be published is logged.
    /// - Parameters:
    ///   - payload: The reply.
    ///   - request: The request being answered.
    ///   - replyTo: The request payload's `replyTo`, if any.
    ///   - rejected: Whether the caller already reported the request as rejected (a request is reported once: a
    ///     missing reply topic is then not reported again).
    public func reply(_ payload: Data, to request: BusMessage, replyTo: String?, rejected: Bool = false) async {
        do {
            if request.properties.responseTopic != nil {
                try await bus.respond(to: request, payload: payload, qos: .atLeastOnce)
            } else if let replyTo {
                try TopicName.validate(replyTo)
                try await bus.publish(BusMessage(topic: replyTo, payload: payload, qos: .atLeastOnce))
            } else if !rejected {
                await errors.reject(request, reason: "the request has neither an MQTT 5 response topic nor a 'replyTo' topic")
            }
        } catch let error as BusError where error.code == .invalidTopic {
            await errors.reject(request, reason: "'replyTo' is not a valid topic: \(error.message)")
        } catch {
            logger.warning("could not send a reply", metadata: ["mqtt.topic": "\(request.topic)", "error": "\(error)"])
        }
    }
}
