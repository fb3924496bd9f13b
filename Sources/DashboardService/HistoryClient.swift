import Bus
import Foundation
import ServiceRuntime

/// Asks the activity service for a device's step history (`stepcompass/activity/history`, MQTT 5
/// request/response with the reply under `stepcompass/replies/`), for the dashboard's history API.
struct HistoryClient: Sendable {
    let bus: any MessageBus
    let topics: Topics
    let timeout: Duration

    enum Outcome: Sendable {
        /// The reply: `{"device", "granularity", "timeZone", "buckets": [{"start", "steps"}]}` or `{"error": {...}}`.
        case reply(Data)
        case timedOut
    }

    func history(device: String, from: String, to: String, granularity: String) async throws -> Outcome {
        let body = try JSONSerialization.data(
            withJSONObject: ["device": device, "from": from, "to": to, "granularity": granularity], options: [.sortedKeys])
        let replyTopic = "\(topics.replies)/\(bus.clientID)/\(UUID().uuidString)"
        let request = BusMessage(topic: topics.activityHistory, payload: body, qos: .atLeastOnce)
        do {
            return .reply(try await bus.request(request, replyTopic: replyTopic, timeout: timeout).payload)
        } catch let error as BusError where error.code == .timeout {
            return .timedOut
        }
    }
}
