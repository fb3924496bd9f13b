import Bus
import DashboardKit
import Foundation
import ServiceRuntime

/// Asks the marker service for a marker's nearest neighbours (MQTT 5 request/response, replies under
/// `stepcompass/replies/` where the ACL lets the marker service answer).
struct NearestClient: Sendable {
    let bus: any MessageBus
    let topics: Topics
    let timeout: Duration

    enum Outcome: Sendable {
        case reply(NearestView)
        case timedOut
    }

    func nearest(markerID: String, count: Int) async throws -> Outcome {
        let body = try JSONSerialization.data(withJSONObject: ["id": markerID, "count": count], options: [.sortedKeys])
        let replyTopic = "\(topics.replies)/\(bus.clientID)/\(UUID().uuidString)"
        let request = BusMessage(topic: topics.markersNearest, payload: body, qos: .atLeastOnce)
        let reply: BusMessage
        do {
            reply = try await bus.request(request, replyTopic: replyTopic, timeout: timeout)
        } catch let error as BusError where error.code == .timeout {
            return .timedOut
        }
        let decoded = try JSONDecoder().decode(NearestReply.self, from: reply.payload)
        return .reply(NearestView(reply: decoded))
    }
}
