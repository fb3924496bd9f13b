public import Metrics
public import Prometheus
import Synchronization

/// The process's metrics: swift-metrics, bootstrapped once with a swift-prometheus registry, which
/// ``MetricsEndpoint`` serves in the Prometheus text format.
///
/// Every service's metrics are named `stepcompass_…` with a `service` label, counters end in `_total`, durations
/// are in seconds; no device id is ever a label (a series per device would explode).
public enum ServiceMetrics {
    private static let installed = Mutex<PrometheusCollectorRegistry?>(nil)

    /// Bootstraps swift-metrics with a Prometheus registry the first time (later calls return the same registry).
    /// Metrics made before it go nowhere, so a service's runtime calls it before the service is built.
    @discardableResult
    public static func bootstrap() -> PrometheusCollectorRegistry {
        installed.withLock { registry in
            if let registry { return registry }
            let created = PrometheusCollectorRegistry()
            var factory = PrometheusMetricsFactory(registry: created)
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
}
