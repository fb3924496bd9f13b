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
}
