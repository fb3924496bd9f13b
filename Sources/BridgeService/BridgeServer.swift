import Hummingbird
import Logging
import NIOCore
public import ServiceLifecycle

/// The HTTP push listener as a service of the bridge's group (Hummingbird's `Application`), with a listening
/// failure turned into ``BridgeError/cannotListen(host:port:reason:)``.
public struct BridgeServer: Service {
    private let application: Application<RouterResponder<BasicRequestContext>>
    private let host: String
    private let port: Int

    init(routes: SensorLoggerRoutes, host: String, port: Int, logger: Logger, listening: AsyncStream<Int>.Continuation) {
        var httpLogger = logger
        httpLogger.logLevel = max(logger.logLevel, .notice)
        self.application = Application(
            router: routes.router(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "stepcompass-bridge"),
            onServerRunning: { channel in listening.yield(channel.localAddress?.port ?? port) },
            logger: httpLogger)
        self.host = host
        self.port = port
    }

    public func run() async throws {
        do {
            try await application.run()
        } catch is CancellationError {
            return
        } catch {
            let text = "\(error)"
            let reason = text.contains("Address already in use") ? "the port is already in use" : text
            throw BridgeError.cannotListen(host: host, port: port, reason: reason)
        }
    }
}
