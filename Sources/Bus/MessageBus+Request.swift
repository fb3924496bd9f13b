public import Foundation

extension MessageBus {
    /// Sends a request and waits for its reply (MQTT 5 request/response, with the contract's MQTT 3.1.1 fallback).
    ///
    /// Subscribes to `replyTopic`, publishes the request with that response topic and `correlation` as its
    /// correlation data, and returns the first message on the reply topic that carries the same correlation data
    /// or, as a reply to an MQTT 3.1.1 request does, echoes it as the payload's `correlationId`.
    /// - Parameters:
    ///   - message: The request; its response topic and correlation data are set here (a request meant for MQTT
    ///     3.1.1 services also carries `replyTo` and `correlationId: correlation` in its payload).
    ///   - replyTopic: Where the responder should answer (under `stepcompass/replies/` where ACLs apply).
    ///   - correlation: The request's correlation id (a fresh one by default).
    ///   - timeout: How long to wait for the reply.
    /// - Throws: ``BusError/Code/timeout`` when no reply arrives in time.
    public func request(
        _ message: BusMessage,
        replyTopic: String,
        correlation correlationID: String = UUID().uuidString,
        timeout: Duration = .seconds(5)
    ) async throws -> BusMessage {
        try TopicName.validate(replyTopic)
        let correlation = Data(correlationID.utf8)
        let replies = try await subscribe(to: try TopicFilter(replyTopic), qos: message.qos)
        var request = message
        request.properties.responseTopic = replyTopic
        request.properties.correlationData = correlation
        do {
            try await publish(request)
            let reply =
                try await withTimeout(timeout) { () -> BusMessage? in
                    for await reply in replies
                    where reply.properties.correlationData == correlation || Self.echoes(correlationID, in: reply.payload) {
                        return reply
                    }
                    return nil
                } ?? nil
            try await unsubscribe(replies)
            guard let reply else {
                throw BusError(.timeout, "no reply on '\(replyTopic)' to a request on '\(message.topic)' within \(timeout)")
            }
            return reply
        } catch {
            try? await unsubscribe(replies)
            throw error
        }
    }

    /// Whether a reply's JSON payload echoes `correlationID` as its `correlationId` (the MQTT 3.1.1 way).
    private static func echoes(_ correlationID: String, in payload: Data) -> Bool {
        guard let object = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] else { return false }
        return object["correlationId"] as? String == correlationID
    }

    /// Publishes a reply to a request that carries an MQTT 5 response topic, echoing its correlation data.
    /// - Returns: `false` when the request has no response topic (nothing is published).
    @discardableResult
    public func respond(to request: BusMessage, payload: Data, qos: QoS = .atLeastOnce) async throws -> Bool {
        guard let topic = request.properties.responseTopic else { return false }
        let reply = BusMessage(
            topic: topic, payload: payload, qos: qos,
            properties: MessageProperties(correlationData: request.properties.correlationData))
        try await publish(reply)
        return true
    }
}
