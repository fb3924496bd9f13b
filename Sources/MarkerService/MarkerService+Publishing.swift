import Bus
import Foundation
import Logging
import MarkerKit
import ServiceRuntime

extension MarkerService {
    /// One encoder for every status, nearby list and reply.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Publishes the retained status; a failure is logged (the next status replaces it).
    func publishStatus(_ status: MarkersStatusMessage) async {
        do {
            let payload = try Self.encoder.encode(status)
            try await bus.publish(
                BusMessage(topic: topics.markersStatus, payload: payload, qos: .atLeastOnce, retain: true))
        } catch {
            logger.warning("could not publish the marker status", metadata: ["error": "\(error)"])
        }
    }

    /// Publishes the retained collection, or clears it when there are more markers than the limit.
    func publishCollection(_ index: MarkerIndex) async {
        let encoded = MarkerCollectionEncoder(limit: configuration.collectionLimit).encode(index.markers)
        if encoded == nil {
            logger.notice(
                "not publishing the marker collection: above the limit",
                metadata: [
                    "markers.count": "\(index.count)", "markers.collectionLimit": "\(configuration.collectionLimit)",
                ])
        }
        do {
            try await bus.publish(
                BusMessage(
                    topic: topics.markersCollection, payload: Data(encoded ?? []), qos: .atLeastOnce, retain: true))
        } catch {
            logger.warning("could not publish the marker collection", metadata: ["error": "\(error)"])
        }
    }
}
