/// A bus whose connection a service's lifecycle controls: connected when the service starts, told what to
/// publish after every reconnect, and disconnected cleanly (keeping the session) when the service stops.
///
/// `MosquittoBus` and `InMemoryBus` both conform, so a service is assembled over either by the same builder.
public protocol ConnectableBus: MessageBus {
    /// Connects, waiting at most `timeout` for the broker to accept the connection.
    /// - Parameter timeout: How long to wait for the first connection.
    func connect(timeout: Duration) async throws

    /// Publishes `finalMessages` (an `offline` status, say), then disconnects cleanly: no last will, and a
    /// persistent session is kept.
    /// - Parameters:
    ///   - finalMessages: Published and acknowledged before the DISCONNECT.
    ///   - timeout: How long to wait for them to be acknowledged.
    func disconnect(publishing finalMessages: [BusMessage], timeout: Duration) async

    /// Sets a message to publish after every reconnect, once the resubscriptions are acknowledged.
    /// - Parameter message: A service's `online` status, or nil to stop.
    func setBirthMessage(_ message: BusMessage?)

    /// Keeps a retained message this client owns (a device's `permissions`) to publish again after every reconnect,
    /// before the birth message. A broker restarted without its store (killed before it saved) has forgotten it, and
    /// a service that starts after that would wait for it forever. A later message on the same topic replaces it.
    /// - Parameter message: The retained message, as published.
    func restateAfterReconnect(_ message: BusMessage)

    /// Stops restating what ``restateAfterReconnect(_:)`` kept for `topic` (a device forgotten).
    func stopRestating(topic: String)
}
