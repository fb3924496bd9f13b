import Metrics
import ServiceRuntime

/// The journal's own metrics (besides every service's, in ``ServiceRuntime/ServiceInstruments``, and the photo
/// lookups by outcome): `stepcompass_journal_walks_on{service}`, the walks on now, and
/// `stepcompass_journal_photo_points_queued{service}`, the photo points waiting for a photo (due, retrying later, or
/// being looked up); with `stepcompass_devices_tracked`.
final class JournalMetrics: Sendable {
    private let instruments: ServiceInstruments
    private let walksOn: Gauge
    private let pointsQueued: Gauge

    init(_ instruments: ServiceInstruments) {
        self.instruments = instruments
        walksOn = instruments.gauge("stepcompass_journal_walks_on")
        pointsQueued = instruments.gauge("stepcompass_journal_photo_points_queued")
    }

    func record(devices: Int, walksOn walks: Int, pointsQueued points: Int) {
        guard instruments.isEnabled else { return }
        instruments.devicesTracked(devices)
        walksOn.record(walks)
        pointsQueued.record(points)
    }
}

extension JournalService {
    /// Sets the journal's gauges from its state (after each batch of messages and at each rest check).
    func recordGauges() {
        metrics.record(devices: devices.count, walksOn: walkDevices.count, pointsQueued: queue.values.reduce(0) { $0 + $1.count })
    }
}
