import Foundation
import MarkerKit
import ServiceRuntime

/// The service's state: the markers in service, their status, the fetch validators, the failure
/// count, and each device's `nearby` bookkeeping.
///
/// An actor so the request handler, the location handler and the refresh pipeline see one
/// consistent state; the index itself is an immutable value swapped in whole, so a query never
/// sees half an update.
actor MarkerStore {
    private(set) var index: MarkerIndex?
    /// Increases whenever the markers in service change (not on a 304).
    private(set) var generation = 0
    private(set) var status: MarkersStatusMessage
    private(set) var validators: MarkerFetcher.Validators?
    private(set) var consecutiveFailures = 0
    private var nearby: NearbyTracker
    private let metrics: MarkerMetrics?

    init(source: String, nearbyMinimumMove: Double, metrics: MarkerMetrics? = nil) {
        status = MarkersStatusMessage(
            state: MarkersStatusMessage.loading, count: 0, rejected: 0, source: source, fromCache: false,
            updatedAt: nil, error: nil, retryAt: nil)
        nearby = NearbyTracker(minimumMove: nearbyMinimumMove)
        self.metrics = metrics
    }

    /// Puts a decoded document in service.
    func load(
        _ index: MarkerIndex, rejected: Int, fromCache: Bool, updatedAt: Date,
        validators: MarkerFetcher.Validators?
    ) -> MarkersStatusMessage {
        self.index = index
        generation += 1
        self.validators = validators
        consecutiveFailures = 0
        status.state = MarkersStatusMessage.ready
        status.count = index.count
        status.rejected = rejected
        status.fromCache = fromCache
        status.updatedAt = Timestamp.format(updatedAt)
        status.error = nil
        status.retryAt = nil
        metrics?.markersInService(index.count)
        return status
    }

    /// The source confirmed the document in service (HTTP 304).
    func confirm(at date: Date) -> MarkersStatusMessage {
        consecutiveFailures = 0
        status.state = index == nil ? MarkersStatusMessage.loading : MarkersStatusMessage.ready
        status.fromCache = false
        status.updatedAt = Timestamp.format(date)
        status.error = nil
        status.retryAt = nil
        return status
    }

    /// Records a failed fetch; the markers in service stay. The status says when the next attempt is due
    /// (`retryAt`) and its error's message ends with which kind of failure it was and when that is (`note`).
    /// Counts the failure in ``consecutiveFailures``.
    func fail(_ error: MarkerServiceError, retryAt: Date, note: String) -> MarkersStatusMessage {
        consecutiveFailures += 1
        status.state = MarkersStatusMessage.failed
        status.error = ErrorReply.Body(code: error.codeName, message: "\(error.message); \(note)")
        status.retryAt = Timestamp.format(retryAt)
        return status
    }

    /// Records a device's location; the index to answer with when a `nearby` list is due.
    func nearbyDue(device: String, latitude: Double, longitude: Double) -> MarkerIndex? {
        let known = nearby.devices.count
        let due = nearby.update(
            device: device, latitude: latitude, longitude: longitude, generation: index == nil ? nil : generation)
        if nearby.devices.count != known { metrics?.instruments.devicesTracked(nearby.devices.count) }
        return due ? index : nil
    }

    /// The devices whose `nearby` lists predate the markers in service.
    func staleNearby() -> (index: MarkerIndex, devices: [(device: String, latitude: Double, longitude: Double)])? {
        guard let index else { return nil }
        return (index, nearby.stale(for: generation))
    }
}
