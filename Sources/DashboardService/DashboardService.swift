import Bus
import DashboardKit
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
public import ServiceRuntime

/// The dashboard (`stepcompass-dashboard`): reads the bus, serves the page and its live events, and
/// turns the page's buttons into the contract's commands.
///
/// It subscribes before it listens, so the first browser already sees the retained state (headings,
/// positions, calibrations, markers, service statuses); it says `online` once both the subscription
/// is acknowledged and the HTTP port is open.
public struct DashboardService: Sendable {
    private let configuration: DashboardConfiguration
    private let context: ServiceContext
    private let files: StaticFiles

    /// - Throws: ``DashboardServiceError`` for a bad configuration or a missing page.
    public init(configuration: DashboardConfiguration, context: ServiceContext) throws(DashboardServiceError) {
        try configuration.validate()
        self.configuration = configuration
        self.context = context
        files = try StaticFiles.bundled()
    }

    /// Runs until cancelled.
    /// - Parameter onListening: Called with the HTTP port once it is open (the real one when
    ///   `httpPort` is 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let hub = DashboardHub(model: DashboardModel(pathLimit: configuration.pathLimit, maxDevices: configuration.maxDevices))
        let topics = DashboardTopics(topics: context.topics)
        let requests = try topics.subscriptions
        let subscription = try await context.bus.subscribe(to: requests)
        context.logger.info("subscribed", metadata: ["filters": "\(requests.map(\.filter.description).joined(separator: " "))"])
        let routes = DashboardRoutes(
            hub: hub, files: files, bus: context.bus, topics: context.topics, configuration: configuration,
            logger: context.logger)
        let (listening, listened) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: routes.router(),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.httpHost, port: configuration.httpPort),
                serverName: "stepcompass-dashboard"),
            onServerRunning: { channel in
                listened.yield(channel.localAddress?.port ?? configuration.httpPort)
                listened.finish()
            },
            logger: httpLogger)
        // The HTTP server runs in its own ServiceGroup, outside this task's cancellation, so that a
        // shutdown is graceful: the event streams are closed, then the server stops accepting and
        // finishes what it has (cancelling it instead makes Hummingbird log errors on every clean stop).
        let server = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], logger: httpLogger))
        let serving = Task { try await server.run() }
        try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await BusListener(subscription: subscription, topics: topics, hub: hub, context: context).run()
                }
                group.addTask {
                    do {
                        try await serving.value
                    } catch {
                        listened.finish()
                        throw DashboardServiceError.cannotListen(
                            host: configuration.httpHost, port: configuration.httpPort, reason: Self.explain(error))
                    }
                    listened.finish()
                }
                defer { group.cancelAll() }
                for await port in listening {
                    context.logger.info("dashboard listening", metadata: [
                        "url": "http://\(Self.displayHost(configuration.httpHost)):\(port)/",
                    ])
                    try await context.ready()
                    await onListening(port)
                }
                // The first task to end (the HTTP server stopping or failing) ends the service.
                try await group.next()
            }
        } onCancel: {
            Task {
                await hub.closeAll()
                await server.triggerGracefulShutdown()
            }
        }
        // Cancelled while the server was still starting or running: wait for its graceful stop.
        _ = try? await serving.value
    }

    /// Hummingbird's own request logs, one level quieter than the service's.
    private var httpLogger: Logger {
        var logger = context.logger
        logger.logLevel = max(context.logger.logLevel, .notice)
        return logger
    }

    private static func displayHost(_ host: String) -> String {
        host == "0.0.0.0" || host == "::" ? "localhost" : host
    }

    private static func explain(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("Address already in use") || text.contains("EADDRINUSE") { return "the port is already in use" }
        if text.contains("Cannot assign requested address") { return "no such address on this machine" }
        return text
    }
}
