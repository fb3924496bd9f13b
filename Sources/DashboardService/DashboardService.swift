import Bus
import DashboardKit
import Hummingbird
import Logging
import NIOCore
public import ServiceLifecycle
import ServiceRuntime

/// The dashboard's bus side (`stepcompass-dashboard`): reads the bus into the hub that the page's live events
/// come from, and says `online` once both its subscription is acknowledged and the HTTP port is open.
///
/// ``buildDashboard(config:logger:bus:onListening:)`` assembles it with the HTTP server (``DashboardServer``,
/// Hummingbird's `Application`) in one group: the bus connection, the server, then this service. On a graceful
/// shutdown this service stops first and closes the event streams, so the server then finishes quickly, with
/// no request left hanging, and the connection publishes `offline` last.
///
/// It subscribes before it listens, so the first browser already sees the retained state (headings,
/// positions, calibrations, markers, service statuses).
public struct DashboardService: Service {
    private let configuration: DashboardConfiguration
    private let context: BusServiceContext
    let hub: DashboardHub
    private let listening: AsyncStream<Int>
    private let onListening: @Sendable (Int) async -> Void
    /// Whether the routes require an access token (for the start-up line).
    private let tokenRequired: Bool

    /// Creates the bus side of the dashboard.
    /// - Parameters:
    ///   - configuration: Limits and addresses.
    ///   - context: The bus, topics, logger and error reporter.
    ///   - listening: The HTTP port, once the server is listening.
    ///   - onListening: Called with the HTTP port once the service is online.
    ///   - tokenRequired: Whether the routes require an access token.
    init(
        configuration: DashboardConfiguration, context: BusServiceContext, listening: AsyncStream<Int>,
        onListening: @escaping @Sendable (Int) async -> Void, tokenRequired: Bool
    ) {
        self.tokenRequired = tokenRequired
        self.configuration = configuration
        self.context = context
        self.hub = DashboardHub(
            model: DashboardModel(pathLimit: configuration.pathLimit, maxDevices: configuration.maxDevices), metrics: context.metrics)
        self.listening = listening
        self.onListening = onListening
    }

    /// Waits for the bus, subscribes, waits for the HTTP port, says ready, then feeds the hub until the group
    /// shuts down (closing every event stream) or the bus closes.
    public func run() async throws {
        let topics = DashboardTopics(topics: context.topics)
        do {
            try await cancelWhenGracefulShutdown { try await self.context.waitUntilConnected() }
        } catch is CancellationError {
            return
        }
        let requests = try topics.subscriptions
        let subscription = try await context.bus.subscribe(to: requests)
        context.logger.info("subscribed", metadata: ["filters": "\(requests.map(\.filter.description).joined(separator: " "))"])
        let hub = self.hub
        let context = self.context
        let configuration = self.configuration
        let listening = self.listening
        let onListening = self.onListening
        // A graceful shutdown cancels the listener and the wait for the port; the streams close below, before
        // the HTTP server (earlier in the group) is asked to stop.
        try? await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await BusListener(subscription: subscription, topics: topics, hub: hub, context: context).run()
                }
                for await port in listening {
                    context.logger.info(
                        "dashboard listening",
                        metadata: [
                            "url": "http://\(Self.displayHost(configuration.httpHost)):\(port)/",
                            "dashboard.auth": .string(tokenRequired ? "token required" : "none (loopback only)"),
                        ])
                    do {
                        try await context.ready()
                    } catch {
                        context.logger.error("could not publish the online status", metadata: ["error": "\(error)"])
                    }
                    await onListening(port)
                }
                await group.waitForAll()
            }
        }
        await hub.closeAll()
        try? await context.bus.unsubscribe(subscription)
    }

    static func displayHost(_ host: String) -> String {
        host == "0.0.0.0" || host == "::" ? "localhost" : host
    }
}
