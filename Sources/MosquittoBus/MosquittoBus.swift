public import Bus
import CMosquitto
public import Logging

import struct Foundation.Data

/// A ``MessageBus`` on a real MQTT broker through libmosquitto.
///
/// The client runs libmosquitto on one network thread that it owns, and nothing else: callbacks copy
/// what they receive (libmosquitto frees a message when its callback returns) and hand it to Swift
/// concurrency through stream continuations, so no application code ever runs on that thread.
///
/// It reconnects by itself with exponential backoff. On every connect it sends the CONNECT properties
/// again (libmosquitto's own reconnect in `mosquitto_loop_start` drops them, and with them the session
/// expiry that keeps queued QoS 1 messages), resubscribes every active filter (libmosquitto never
/// restores subscriptions), and then republishes the ``setBirthMessage(_:)`` message, such as a service's
/// `online` status.
///
/// ```swift
/// let bus = try MosquittoBus(configuration: .init(clientID: "position"), logger: logger)
/// try await bus.connect()
/// let steps = try await bus.subscribe(to: "stepcompass/+/steps")
/// for await message in steps { ... }
/// ```
public final class MosquittoBus: ConnectableBus, SubscriptionBufferReporting {
    public let clientID: String
    let configuration: MosquittoConfiguration
    let logger: Logger
    nonisolated(unsafe) let handle: OpaquePointer
    let router: SubscriptionRouter
    let window: PublishWindow
    let state = LockedValue(ConnectionState())
    let sendLock = LockedValue(())
    /// Wakes the network thread when another thread queued a packet.
    let wake: NetworkWake
    /// Runs the jobs of tasks that prefer the network thread (``taskExecutor``).
    let executor: NetworkExecutor
    /// Messages received in the network thread's current read burst, routed together when the burst
    /// ends (see `routeReceived()`). Only the network thread touches it: libmosquitto runs the message
    /// callback on the thread that calls its loop functions, which is that thread alone.
    nonisolated(unsafe) var receivedBatch: [BusMessage] = []

    /// Creates a client; nothing is sent until ``connect(timeout:)`` or ``run()``.
    /// - Parameters:
    ///   - configuration: Where and how to connect.
    ///   - logger: Receives connection, subscription and drop events (libraries never create loggers).
    /// - Throws: ``BusError`` for an invalid configuration, ``MosquittoError`` when libmosquitto refuses
    ///   an option (for example an unreadable TLS file).
    public init(configuration: MosquittoConfiguration, logger: Logger) throws {
        try configuration.validate()
        MosquittoLibrary.ensureInitialized()
        guard let handle = mosquitto_new(configuration.clientID, configuration.cleanStart, nil) else {
            throw MosquittoError(code: Int32(MOSQ_ERR_NOMEM.rawValue), function: "mosquitto_new")
        }
        self.handle = handle
        self.clientID = configuration.clientID
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "mqtt.client"] = "\(configuration.clientID)"
        self.logger = logger
        self.router = SubscriptionRouter(streamLimit: configuration.subscriptionBuffer)
        self.window = PublishWindow(limit: configuration.maxInflight)
        self.wake = try NetworkWake()
        self.executor = NetworkExecutor(wake: wake)
        // Every stored property is set, so a failure here runs deinit, which destroys the handle: destroying
        // it here too would free it twice.
        try configure()
    }

    deinit {
        mosquitto_destroy(handle)
    }

    /// Whether the client is connected to the broker now.
    public var isConnected: Bool { state.withLock { $0.phase == .connected } }

    /// How many times a CONNACK accepted this client (1 after the first connect, 2 after a reconnect...).
    public var connectCount: Int { state.withLock { $0.connectCount } }

    /// The most publishes that were in flight at once (never above ``MosquittoConfiguration/maxInflight``).
    public var peakInflight: Int { window.peakInUse }

    /// The publishes waiting for the broker's acknowledgement now.
    public var inflight: Int { window.inUse }

    /// The subscriptions' backlog and drops (see ``Bus/SubscriptionBufferReporting``).
    public var subscriptionBuffers: SubscriptionBufferStatistics { router.bufferStatistics }

    /// The socket's file descriptor while connected (for diagnostics such as checking `TCP_NODELAY`).
    package var socketDescriptor: Int32 { mosquitto_socket(handle) }

    // MARK: Connecting

    /// Starts the network thread and waits until the broker accepts the connection.
    ///
    /// The thread keeps reconnecting with backoff after a failure or a lost connection, so a broker
    /// that starts later is found; the call itself gives up after `timeout`.
    /// - Throws: ``BusError/Code/timeout`` with the last connection error when the broker did not accept
    ///   the connection in time.
    public func connect(timeout: Duration = .seconds(10)) async throws {
        startNetworkThread()
        try await waitUntilConnected(timeout: timeout)
    }

    /// Publishes any final messages, disconnects cleanly (no last will; the session is kept) and stops
    /// the network thread. Subscriptions finish.
    /// - Parameter finalMessages: Published and acknowledged before the DISCONNECT, such as an
    ///   `offline` status.
    public func disconnect(publishing finalMessages: [BusMessage] = [], timeout: Duration = .seconds(5)) async {
        if isConnected {
            for message in finalMessages {
                do { try await publish(message) } catch {
                    logger.warning("could not publish before disconnecting", metadata: ["mqtt.topic": "\(message.topic)", "error": "\(error)"])
                }
            }
            _ = try? await withTimeout(timeout) { try await self.flush() }
        }
        await stopNetworkThread(sendDisconnect: true)
        window.close()
        router.close()
    }

    /// Drops the connection without a DISCONNECT, as a crash would: the broker publishes the last will.
    /// For tests of wills and reconnection.
    package func simulateConnectionLoss() async {
        await stopNetworkThread(sendDisconnect: false)
        window.close()
        router.close()
    }

    /// Sets a message to publish after every reconnect, once the resubscriptions are acknowledged.
    /// - Parameter message: A service's `online` status, or nil to stop.
    public func setBirthMessage(_ message: BusMessage?) {
        state.withLock { $0.birth = message }
    }

    public func restateAfterReconnect(_ message: BusMessage) {
        state.withLock { $0.restated[message.topic] = message }
    }

    public func stopRestating(topic: String) {
        _ = state.withLock { $0.restated.removeValue(forKey: topic) }
    }

    // MARK: MessageBus

    /// The network thread, for tasks that answer messages without a thread switch (see ``NetworkExecutor``).
    public var taskExecutor: (any TaskExecutor)? { executor }

    public func publish(_ message: BusMessage) async throws {
        try TopicName.validate(message.topic)
        let properties = configuration.protocolVersion == .v5 ? try MosquittoProperties.make(message.properties) : nil
        defer {
            var list = properties
            mosquitto_property_free_all(&list)
        }
        while true {
            try await waitUntilConnected(timeout: nil)
            try await window.reserve()
            var mid: Int32 = 0
            let rc = message.payload.withUnsafeBytes { raw in
                mosquitto_publish_v5(
                    handle, &mid, message.topic, Int32(raw.count), raw.baseAddress, Int32(message.qos.rawValue),
                    message.retain, properties)
            }
            if rc == Int32(MOSQ_ERR_SUCCESS.rawValue) {
                window.commit(mid: mid, qos: message.qos)
                wake.signal()
                configuration.observer?.published(message)
                return
            }
            window.cancelReservation()
            if rc == Int32(MOSQ_ERR_NO_CONN.rawValue) {
                continue  // lost between the check and the call: wait for the reconnect and try again
            }
            throw MosquittoError(code: rc, function: "mosquitto_publish_v5").busError
        }
    }

    public func subscribe(to requests: [SubscriptionRequest]) async throws -> BusSubscription {
        guard !requests.isEmpty else { throw BusError(.invalidTopic, "a subscription needs at least one filter") }
        while true {
            try await waitUntilConnected(timeout: nil)
            let sent: (BusSubscription, [(SubscriptionRequest, Int32)])? = try sendLock.withLock { _ in
                guard isConnected else { return nil }
                let subscription = router.add(requests)
                var mids: [(SubscriptionRequest, Int32)] = []
                // Each filter as the broker must now have it, merged with this client's other subscriptions to it
                // (the broker keeps one per filter: asking for QoS 0 or No Local must not take them from another).
                for request in router.activeRequests(for: requests.map(\.filter)) {
                    mids.append((request, try sendSubscribe(request)))
                }
                wake.signal()
                return (subscription, mids)
            }
            guard let (subscription, mids) = sent else { continue }
            do {
                for (request, mid) in mids {
                    let granted = try await waitForAcknowledgement(mid: mid)
                    if granted.contains(where: { $0 >= 0x80 }) {
                        throw BusError(
                            .subscriptionRejected,
                            "the broker refused the subscription to '\(request.filter)' (reason \(granted.map(String.init).joined(separator: ","))): "
                                + MosquittoError.describe(reasonCode: granted.first ?? 0x80))
                    }
                }
            } catch let error as BusError where error.code == .notConnected {
                router.remove(subscription.id)
                continue  // the connection dropped before SUBACK: subscribe again once reconnected
            } catch {
                try? await unsubscribe(subscription)
                throw error
            }
            logger.info(
                "subscribed",
                metadata: [
                    "mqtt.filters": "\(requests.map { "\($0.filter)@\($0.qos.rawValue)" }.joined(separator: " "))"
                ])
            return subscription
        }
    }

    public func unsubscribe(_ subscription: BusSubscription) async throws {
        let unused = router.remove(subscription.id)
        guard !unused.isEmpty, isConnected else { return }
        var mids: [Int32] = []
        try sendLock.withLock { _ in
            for filter in unused {
                var mid: Int32 = 0
                try MosquittoError.check(mosquitto_unsubscribe_v5(handle, &mid, filter.rawValue, nil), "mosquitto_unsubscribe_v5")
                // Registered before the UNSUBACK can be handled, so an early acknowledgement is kept.
                _ = state.withLock { $0.awaitingAck.insert(mid) }
                mids.append(mid)
            }
        }
        wake.signal()
        for mid in mids { _ = try await waitForAcknowledgement(mid: mid) }
        logger.debug("unsubscribed", metadata: ["mqtt.filters": "\(unused.map(\.rawValue).joined(separator: " "))"])
    }

    public func flush() async throws {
        await window.drain()
    }

    /// Sends one SUBSCRIBE; the caller holds `sendLock`.
    func sendSubscribe(_ request: SubscriptionRequest) throws(MosquittoError) -> Int32 {
        var mid: Int32 = 0
        try MosquittoError.check(
            mosquitto_subscribe_v5(
                handle, &mid, request.filter.rawValue, Int32(request.qos.rawValue),
                subscribeOptions(request, retainedOnlyIfNew: false), nil),
            "mosquitto_subscribe_v5")
        _ = state.withLock { $0.awaitingAck.insert(mid) }
        return mid
    }

    /// The MQTT 5 subscription options of `request` (none over MQTT 3.1.1, which has none): No Local when asked
    /// for, and, on a resubscription after a reconnect, retained messages only if the subscription is new.
    func subscribeOptions(_ request: SubscriptionRequest, retainedOnlyIfNew: Bool) -> Int32 {
        guard configuration.protocolVersion == .v5 else { return 0 }
        var options: Int32 = 0
        if request.noLocal { options |= Int32(MQTT_SUB_OPT_NO_LOCAL.rawValue) }
        if retainedOnlyIfNew { options |= Int32(MQTT_SUB_OPT_SEND_RETAIN_NEW.rawValue) }
        return options
    }
}
