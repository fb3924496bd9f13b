import Hummingbird
import Logging
import NIOCore
public import ServiceLifecycle

/// The dashboard's HTTP server as a service of the dashboard's group: Hummingbird's `Application` running the
/// dashboard's routes, with a listening failure turned into ``DashboardServiceError/cannotListen(host:port:reason:)``.
///
/// Hummingbird stops it gracefully on the group's shutdown: it stops accepting and finishes the requests in
/// flight (the event streams are closed before, by ``DashboardService``).
public struct DashboardServer: Service {
    private let application: Application<RouterResponder<BasicRequestContext>>
    private let host: String
    private let port: Int

    init(routes: DashboardRoutes, configuration: DashboardConfiguration, logger: Logger, listening: AsyncStream<Int>.Continuation) {
        var httpLogger = logger
        httpLogger.logLevel = max(logger.logLevel, .notice)
        let port = configuration.httpPort
        self.application = Application(
            router: routes.router(),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.httpHost, port: port),
                serverName: "stepcompass-dashboard"),
            onServerRunning: { channel in
                listening.yield(channel.localAddress?.port ?? port)
            },
            logger: httpLogger)
        self.host = configuration.httpHost
        self.port = port
    }

    public func run() async throws {
        do {
            try await application.run()
        } catch is CancellationError {
            return
        } catch {
            throw DashboardServiceError.cannotListen(host: host, port: port, reason: Self.explain(error))
        }
    }

    private static func explain(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("Address already in use") || text.contains("EADDRINUSE") { return "the port is already in use" }
        if text.contains("Cannot assign requested address") { return "no such address on this machine" }
        return text
    }
}
