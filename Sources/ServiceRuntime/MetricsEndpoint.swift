import Foundation
import Hummingbird
public import Logging
import NIOCore
public import Prometheus
public import ServiceLifecycle

/// `GET /metrics` in the Prometheus text format, on the service's `--metrics-port` (a service of its group).
public struct MetricsEndpoint: Service {
    let host: String
    let port: Int
    let registry: PrometheusCollectorRegistry
    let refresh: @Sendable () -> Void
    let logger: Logger

    /// - Parameters:
    ///   - host: The address to listen on (`127.0.0.1`; `0.0.0.0` in a container).
    ///   - port: The port (0: any free port, for tests).
    ///   - registry: What to serve.
    ///   - refresh: Sets the gauges read at scrape time (publishes waiting for acknowledgement, ...).
    ///   - logger: The service's logger.
    public init(host: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger, refresh: @escaping @Sendable () -> Void = {}) {
        self.host = host
        self.port = port
        self.registry = registry
        self.refresh = refresh
        self.logger = logger
    }

    public func run() async throws {
        let registry = registry
        let refresh = refresh
        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            refresh()
            var buffer: [UInt8] = []
            buffer.reserveCapacity(16_384)
            registry.emit(into: &buffer)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        let host = host
        let port = port
        let logger = logger
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "stepcompass-metrics"),
            onServerRunning: { channel in
                logger.info("serving metrics", metadata: ["metrics.url": "http://\(host):\(channel.localAddress?.port ?? port)/metrics"])
            },
            logger: logger)
        try await app.runService()
    }
}
