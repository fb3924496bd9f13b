public import Bus
public import Logging

/// What a service's logic gets from the runtime: the bus, the topic names, a logger, the error
/// reporter, ``ready()`` to say that its subscriptions are in place, and ``waitUntilConnected()``.
///
/// ``BusRuntime`` makes one for each service it assembles; tests make one over an in-memory bus.
public struct BusServiceContext: Sendable {
    public let service: String
    public let bus: any MessageBus
    public let topics: Topics
    public let logger: Logger
    public let errors: ErrorReporter
    /// The service's metrics (`service` label): message handling time by kind, devices tracked, its own.
    public let metrics: ServiceInstruments
    /// The clock the service reads its time from (windows, stale detection, timers, message timestamps): a
    /// `ContinuousClock` in the executables, a manual one in tests.
    public let clock: ServiceClock
    private let onReady: @Sendable () async throws -> Void
    private let connected: @Sendable () async throws -> Void
    private let restate: @Sendable (_ topic: String, _ message: BusMessage?) -> Void

    /// Creates a context; the runtime does this, and tests do it over an in-memory bus.
    /// - Parameters:
    ///   - service: The contract's service name (`position`, ...).
    ///   - bus: The bus the logic publishes and subscribes on.
    ///   - topics: The topic names under the configured prefix.
    ///   - logger: The service's logger.
    ///   - onReady: Called by ``ready()``: the runtime publishes the `online` status.
    ///   - connected: Returns once the bus is connected (the default: at once).
    ///   - clock: The service's clock (default: a `ContinuousClock` from now).
    ///   - restate: Keeps (or, given nil, stops keeping) a topic's retained message to publish again after every
    ///     reconnect (``ConnectableBus/restateAfterReconnect(_:)``); the default keeps nothing.
    public init(
        service: String, bus: any MessageBus, topics: Topics = Topics(), logger: Logger,
        onReady: @escaping @Sendable () async throws -> Void = {},
        connected: @escaping @Sendable () async throws -> Void = {},
        clock: ServiceClock = .continuous,
        restate: @escaping @Sendable (_ topic: String, _ message: BusMessage?) -> Void = { _, _ in }
    ) {
        self.service = service
        self.bus = bus
        self.topics = topics
        self.logger = logger
        self.clock = clock
        let metrics = ServiceInstruments(service: service, topics: topics)
        self.errors = ErrorReporter(bus: bus, topics: topics, service: service, logger: logger, metrics: metrics, clock: clock)
        self.metrics = metrics
        self.onReady = onReady
        self.connected = connected
        self.restate = restate
    }

    /// Publishes a retained message the service owns for a device (a simulated or bridged phone's `permissions`),
    /// and publishes it again after every reconnect: a broker restarted without its store has forgotten it, and a
    /// service that needs it (the journal records nothing without the location permission) would wait forever.
    public func publishRestated(_ message: BusMessage) async throws {
        try await bus.publish(message)
        restate(message.topic, message)
    }

    /// ``publishRestated(_:)`` for each of `messages`, in order, in one call: a service that handles its input in
    /// batches publishes a batch's output with one hop from its actor to the bus and back, not one per message.
    public func publishRestated(contentsOf messages: [BusMessage]) async throws {
        for message in messages {
            try await bus.publish(message)
            restate(message.topic, message)
        }
    }

    /// Stops publishing `topic` again after reconnects (its device is forgotten).
    public func stopRestating(topic: String) {
        restate(topic, nil)
    }

    /// Stops publishing any of `device`'s retained topics again after reconnects: the device was evicted from the
    /// service's table, or forgotten (`stepcompass forget` sends `cmd/forget`), and a broker restart must not bring
    /// back what the user cleared.
    public func stopRestating(device: String) {
        for topic in Topics.retainedDeviceTopics { restate(topics.device(device, topic), nil) }
    }

    /// Says the service is ready: call it once its subscriptions are acknowledged. The runtime then
    /// publishes the `online` status (and again after every reconnect).
    public func ready() async throws {
        try await onReady()
    }

    /// Returns once the bus connection is up (the runtime's ``BusConnection`` connects it).
    public func waitUntilConnected() async throws {
        try await connected()
    }
}
