import Metrics
import ServiceRuntime
import Synchronization

/// The bridge's own metrics (besides every service's, in ``ServiceRuntime/ServiceInstruments``, and the HTTP requests
/// by route and status from Hummingbird's `MetricsMiddleware`):
///
/// - `stepcompass_bridge_batches_total{service,source}`: what phones sent and the bridge published, a batch at a
///   time: a Sensor Logger push body (`sensor-logger-http`, `sensor-logger-mqtt`), an OwnTracks location
///   (`owntracks`), a gpsd fix (`gpsd`);
/// - `stepcompass_bridge_detected_steps_total{service}`: steps the detector found in the accelerometer, every
///   device together, and `stepcompass_bridge_detector_devices{service}`: the devices it runs for (both read at
///   scrape time: a sample pays nothing for them);
/// - `stepcompass_devices_tracked{service}`: the phones with a session (Sensor Logger, OwnTracks, gpsd).
final class BridgeMetrics: Sendable {
    /// Where a batch came from.
    enum Source: String, CaseIterable, Sendable {
        case sensorLoggerHTTP = "sensor-logger-http"
        case sensorLoggerMQTT = "sensor-logger-mqtt"
        case ownTracks = "owntracks"
        case gpsd
    }

    let instruments: ServiceInstruments
    private let batches: [Source: Counter]
    private let steps: StepCounter
    private let detected: Counter
    private let detectorDevices: Gauge
    /// The detected steps already added to the counter (the detector keeps the total).
    private let counted = Mutex(0)

    init(_ instruments: ServiceInstruments, steps: StepCounter) {
        self.instruments = instruments
        self.steps = steps
        batches = Dictionary(
            uniqueKeysWithValues: Source.allCases.map { source in
                (source, instruments.counter("stepcompass_bridge_batches_total", [("source", source.rawValue)]))
            })
        detected = instruments.counter("stepcompass_bridge_detected_steps_total")
        detectorDevices = instruments.gauge("stepcompass_bridge_detector_devices")
        instruments.onScrape { [weak self] in self?.refresh() }
    }

    /// A batch from `source` was published.
    func batch(_ source: Source) {
        batches[source]?.increment()
    }

    /// The detector's figures, before a scrape.
    private func refresh() {
        detectorDevices.record(steps.deviceCount)
        let total = steps.detectedSteps
        let added = counted.withLock { counted -> Int in
            defer { counted = max(counted, total) }
            return max(0, total - counted)
        }
        if added > 0 { detected.increment(by: added) }
    }
}
