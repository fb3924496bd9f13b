import Metrics
import ServiceRuntime

/// The marker service's own metrics (besides every service's, in ``ServiceRuntime/ServiceInstruments``):
///
/// - `stepcompass_markers_in_service{service}`: the markers answering queries now;
/// - `stepcompass_markers_fetch_failures_total{service,code}`: failed fetches of the source by error code
///   (`timeout`, `httpStatus`, `invalidJSON`, ...: ``MarkerServiceError/codeName``);
/// - `stepcompass_markers_nearest_queries_total{service,outcome}`: `markers/nearest` requests answered, `ok` or the
///   error reply's code (`badRequest`, `notReady`, `notFound`, ...);
/// - `stepcompass_markers_nearest_query_seconds{service}`: the time from a request's receipt to its reply.
final class MarkerMetrics: Sendable {
    let instruments: ServiceInstruments
    private let inService: Gauge
    private let nearestSeconds: Metrics.Timer

    init(_ instruments: ServiceInstruments) {
        self.instruments = instruments
        inService = instruments.gauge("stepcompass_markers_in_service")
        nearestSeconds = instruments.timer("stepcompass_markers_nearest_query_seconds")
    }

    /// The markers in service changed.
    func markersInService(_ count: Int) {
        inService.record(count)
    }

    /// A fetch of the source failed with `code`.
    func fetchFailed(code: String) {
        instruments.counter("stepcompass_markers_fetch_failures_total", "code", code).increment()
    }

    /// A `markers/nearest` request was answered with `outcome`, `start` being when it was taken off the bus.
    func nearestAnswered(outcome: String, since start: ContinuousClock.Instant) {
        nearestSeconds.record(duration: ContinuousClock.now - start)
        instruments.counter("stepcompass_markers_nearest_queries_total", "outcome", outcome).increment()
    }
}
