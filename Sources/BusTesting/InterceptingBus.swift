public import Bus

/// A bus that forwards everything to `inner`, but first calls `beforePublish` with each message it is asked to
/// publish: to make some publishes slow, hold one back until a test lets it go, or count them.
public final class InterceptingBus: ConnectableBus, Sendable {
    public let inner: any ConnectableBus
    private let beforePublish: @Sendable (BusMessage) async throws -> Void

    /// - Parameters:
    ///   - inner: The bus that does the work.
    ///   - beforePublish: Called (and awaited) before each message is handed to `inner`; an error it throws is the
    ///     publish's, and the message is not published.
    public init(inner: any ConnectableBus, beforePublish: @escaping @Sendable (BusMessage) async throws -> Void) {
        self.inner = inner
        self.beforePublish = beforePublish
    }

    public var clientID: String { inner.clientID }
    public var taskExecutor: (any TaskExecutor)? { inner.taskExecutor }

    public func publish(_ message: BusMessage) async throws {
        try await beforePublish(message)
        try await inner.publish(message)
    }

    public func subscribe(to requests: [SubscriptionRequest]) async throws -> BusSubscription { try await inner.subscribe(to: requests) }
    public func unsubscribe(_ subscription: BusSubscription) async throws { try await inner.unsubscribe(subscription) }
    public func flush() async throws { try await inner.flush() }
    public func connect(timeout: Duration) async throws { try await inner.connect(timeout: timeout) }
    public func disconnect(publishing finalMessages: [BusMessage], timeout: Duration) async {
        await inner.disconnect(publishing: finalMessages, timeout: timeout)
    }
    public func setBirthMessage(_ message: BusMessage?) { inner.setBirthMessage(message) }
    public func restateAfterReconnect(_ message: BusMessage) { inner.restateAfterReconnect(message) }
    public func stopRestating(topic: String) { inner.stopRestating(topic: topic) }
}
