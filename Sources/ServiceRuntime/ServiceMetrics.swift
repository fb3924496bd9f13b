public import Metrics
public import Prometheus
import Synchronization

/// The process's metrics: swift-metrics, bootstrapped once with a swift-prometheus registry, which
/// ``MetricsEndpoint`` serves in the Prometheus text format.
///
/// Every service's metrics are named `stepcompass_…` with a `service` label, counters end in `_total`, durations
/// are in seconds; no device id is ever a label (a series per device would explode).
///
/// Hummingbird's `MetricsMiddleware` (the dashboard's and the bridge's routers) names its metrics after
/// OpenTelemetry's conventions; they are renamed here to this project's: `stepcompass_http_requests_total`,
/// `stepcompass_http_request_duration_seconds` and `stepcompass_http_request_errors_total` with the labels
/// `service`, `route` (the route's pattern, such as `/api/devices/{device}/history`: never a device id), `method`
/// and `status`, and `stepcompass_http_active_requests` (`service`, `method`).
public enum ServiceMetrics {
    private static let installed = Mutex<PrometheusCollectorRegistry?>(nil)
    /// The process's service, the `service` label of metrics made by libraries (Hummingbird's).
    private static let processService = Mutex<String?>(nil)

    /// Bootstraps swift-metrics with a Prometheus registry the first time (later calls return the same registry).
    /// Metrics made before it go nowhere, so a service's runtime calls it before the service is built.
    /// - Parameter service: The process's service: the `service` label of the HTTP metrics (the first one given).
    @discardableResult
    public static func bootstrap(service: String? = nil) -> PrometheusCollectorRegistry {
        if let service { processService.withLock { $0 = $0 ?? service } }
        return installed.withLock { registry in
            if let registry { return registry }
            let created = PrometheusCollectorRegistry()
            var factory = PrometheusMetricsFactory(registry: created)
            factory.nameAndLabelSanitizer = { name, labels in renamed(name, labels) }
            // Message handling takes microseconds to milliseconds; the defaults start at 5 ms.
            factory.defaultDurationHistogramBuckets = [
                .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
                .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
            ]
            MetricsSystem.bootstrap(factory)
            registry = created
            return created
        }
    }

    /// The registry, once bootstrapped.
    public static var registry: PrometheusCollectorRegistry? { installed.withLock { $0 } }

    /// Every metric of the process in the Prometheus text format, as `GET /metrics` serves it (without its
    /// scrape-time refresh, ``BusRuntime/refreshMetrics()``); empty before ``bootstrap(service:)``.
    public static func text() -> String {
        registry?.emitToString() ?? ""
    }

    /// Hummingbird's metric names and labels in this project's conventions; every other metric as it is.
    static func renamed(_ name: String, _ labels: [(String, String)]) -> (String, [(String, String)]) {
        let renamed: String
        switch name {
        case "hb.requests": renamed = "stepcompass_http_requests_total"
        case "http.server.request.duration": renamed = "stepcompass_http_request_duration_seconds"
        case "hb.request.errors": renamed = "stepcompass_http_request_errors_total"
        case "http.server.active_requests": renamed = "stepcompass_http_active_requests"
        default: return (name, labels)
        }
        let service = processService.withLock { $0 } ?? "stepcompass"
        return (
            renamed,
            [("service", service)]
                + labels.map { label, value in
                    switch label {
                    case "http.route": ("route", value)
                    case "http.request.method": ("method", value)
                    case "http.response.status_code", "error.type": ("status", value)
                    default: (label, value)
                    }
                }
        )
    }
}
