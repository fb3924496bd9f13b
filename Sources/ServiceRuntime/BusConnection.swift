public import Bus
import Foundation
public import Logging
public import ServiceLifecycle

/// The bus connection as a swift-service-lifecycle `Service`: the first service of every StepCompass group,
/// so that it stops last.
///
/// `run()` connects (retrying with backoff until the broker is there, or until the group shuts down), opens
/// the gate that ``BusServiceContext/waitUntilConnected()`` waits on, and then waits for the graceful
/// shutdown. The logic services call ``ready()`` (through their context) once subscribed: the `online` status
/// is published and set as the birth message, republished after every reconnect. When the group shuts down,
/// after the logic services have stopped, it publishes `offline` and disconnects cleanly, keeping the session.
public final class BusConnection: Service, Sendable {
    /// The bus this connection drives.
    public let bus: any ConnectableBus
    private let online: BusMessage
    private let offline: BusMessage
    private let logger: Logger
    private let gate = ConnectionGate()

    /// Creates the connection service.
    /// - Parameters:
    ///   - bus: The bus to connect (its last will should be `offline`).
    ///   - online: The retained `online` status.
    ///   - offline: The retained `offline` status, published before a clean disconnect.
    ///   - logger: The service's logger.
    public init(bus: any ConnectableBus, online: BusMessage, offline: BusMessage, logger: Logger) {
        self.bus = bus
        self.online = online
        self.offline = offline
        self.logger = logger
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await self.bus.connect(timeout: .seconds(365 * 86_400))
            }
        } catch is CancellationError {
            // Asked to stop before the broker was reached: nothing to publish.
            logger.info("stopping before the broker was reached")
            await bus.disconnect(publishing: [], timeout: .seconds(1))
            return
        }
        gate.open()
        // Wait for the group's graceful shutdown (or cancellation); the logic services stop first.
        try? await gracefulShutdown()
        logger.info("stopping: publishing offline and disconnecting")
        await bus.disconnect(publishing: [offline], timeout: .seconds(5))
    }

    /// Returns once the bus is connected.
    public func waitUntilConnected() async throws {
        try await gate.wait()
    }

    /// Publishes the `online` status and keeps it as the birth message for reconnects.
    public func ready() async throws {
        try await bus.publish(online)
        bus.setBirthMessage(online)
        logger.info("online", metadata: ["status.topic": "\(online.topic)"])
    }
}
