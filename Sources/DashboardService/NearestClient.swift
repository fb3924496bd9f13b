import Bus
import DashboardKit
import Foundation
import ServiceRuntime

/// Asks the marker service for a marker's nearest neighbours (`stepcompass/markers/nearest`, through
/// ``ServiceRequester``).
struct NearestClient: Sendable {
    let requester: ServiceRequester

    enum Outcome: Sendable {
        case reply(NearestView)
        case timedOut
    }

    func nearest(markerID: String, count: Int) async throws -> Outcome {
        switch try await requester.request(requester.topics.markersNearest, NearestRequest(id: markerID, count: count)) {
        case .timedOut: return .timedOut
        case .reply(let payload): return .reply(NearestView(reply: try JSONDecoder().decode(NearestReply.self, from: payload)))
        }
    }
}
