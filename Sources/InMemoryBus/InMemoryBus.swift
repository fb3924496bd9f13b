public import Bus

/// A client of an ``InMemoryBroker``: the unit-test implementation of ``MessageBus``.
///
/// Like the mosquitto client it has a client id, a persistent session unless `cleanStart` is set, and a
/// last will that the broker publishes when the connection is lost rather than closed.
public final class InMemoryBus: ConnectableBus, SubscriptionBufferReporting {
    public let clientID: String
    private let broker: InMemoryBroker
    private let cleanStart: Bool
    private let will: BusMessage?
    private let connection = LockedValue<(id: Int, router: SubscriptionRouter)?>(nil)
    private let subscriptionBuffer: Int
    /// The drops of the routers of earlier connections (each connection has its own router).
    private let earlierDrops = LockedValue((full: 0, unmatched: 0))

    /// Creates a client; call ``connect()`` before use.
    /// - Parameters:
    ///   - broker: The broker to connect to.
    ///   - clientID: A stable client id (the session's key).
    ///   - cleanStart: Discard any existing session and do not keep one after disconnecting.
    ///   - will: Published by the broker when the connection is lost without ``disconnect()``.
    ///   - subscriptionBuffer: Messages buffered per subscription before newer ones are dropped (as
    ///     `MosquittoConfiguration.subscriptionBuffer`).
    public init(
        broker: InMemoryBroker, clientID: String, cleanStart: Bool = false, will: BusMessage? = nil,
        subscriptionBuffer: Int = 1_000_000
    ) {
        self.broker = broker
        self.clientID = clientID
        self.cleanStart = cleanStart
        self.will = will
        self.subscriptionBuffer = subscriptionBuffer
    }

    /// Connects; messages queued for a persistent session are held until a subscription matches them.
    public func connect() {
        let router = SubscriptionRouter(streamLimit: subscriptionBuffer)
        let id = broker.connect(clientID: clientID, cleanStart: cleanStart, will: will, router: router)
        connection.withLock { $0 = (id, router) }
    }

    /// Disconnects cleanly: no last will; a persistent session is kept.
    public func disconnect() {
        end(publishWill: false)
    }

    /// Drops the connection as a crash or network failure would: the broker publishes the last will.
    public func simulateConnectionLoss() {
        end(publishWill: true)
    }

    private func end(publishWill: Bool) {
        guard
            let current = connection.withLock({ value -> (id: Int, router: SubscriptionRouter)? in
                defer { value = nil }
                return value
            })
        else { return }
        let statistics = current.router.bufferStatistics
        earlierDrops.withLock {
            $0.full += statistics.droppedFull
            $0.unmatched += statistics.droppedUnmatched
        }
        current.router.close()
        broker.disconnect(clientID: clientID, connectionID: current.id, publishWill: publishWill)
    }

    private func current() throws -> (id: Int, router: SubscriptionRouter) {
        guard let current = connection.withLock({ $0 }) else {
            throw BusError(.notConnected, "in-memory client '\(clientID)' is not connected")
        }
        return current
    }

    public func publish(_ message: BusMessage) async throws {
        try TopicName.validate(message.topic)
        _ = try current()
        broker.publish(message, from: clientID)
    }

    public func subscribe(to requests: [SubscriptionRequest]) async throws -> BusSubscription {
        let router = try current().router
        let subscription = router.add(requests)
        // Merged with this client's other subscriptions to the same filters, as the mosquitto client sends them.
        broker.subscribe(clientID: clientID, requests: router.activeRequests(for: requests.map(\.filter)))
        return subscription
    }

    public func unsubscribe(_ subscription: BusSubscription) async throws {
        guard let router = connection.withLock({ $0?.router }) else { return }
        let unused = router.remove(subscription.id)
        if !unused.isEmpty { broker.unsubscribe(clientID: clientID, filters: unused) }
    }

    public func flush() async throws {}

    /// The subscriptions' backlog now, and the drops of every connection so far.
    public var subscriptionBuffers: SubscriptionBufferStatistics {
        var statistics = connection.withLock { $0?.router.bufferStatistics } ?? SubscriptionBufferStatistics()
        let earlier = earlierDrops.withLock { $0 }
        statistics.droppedFull += earlier.full
        statistics.droppedUnmatched += earlier.unmatched
        return statistics
    }

    // MARK: ConnectableBus

    /// Connects unless already connected (a test may connect the client before handing it to a service).
    public func connect(timeout: Duration) async throws {
        if connection.withLock({ $0 == nil }) { connect() }
    }

    /// Publishes the final messages, then disconnects cleanly.
    public func disconnect(publishing finalMessages: [BusMessage], timeout: Duration) async {
        for message in finalMessages {
            try? await publish(message)
        }
        disconnect()
    }

    /// The in-memory broker never drops a connection by itself, so there is no reconnect to republish after.
    public func setBirthMessage(_ message: BusMessage?) {}

    /// Nothing to restate: the in-memory broker never loses its retained messages.
    public func restateAfterReconnect(_ message: BusMessage) {}

    public func stopRestating(topic: String) {}
}
