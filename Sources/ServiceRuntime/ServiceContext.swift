public import Bus
public import Logging

/// What a service's logic gets from the runtime: the bus, the topic names, a logger, the error
/// reporter, and ``ready()`` to say that its subscriptions are in place.
public struct ServiceContext: Sendable {
    public let service: String
    public let bus: any MessageBus
    public let topics: Topics
    public let logger: Logger
    public let errors: ErrorReporter
    private let onReady: @Sendable () async throws -> Void

    /// Creates a context; the runtime does this, and tests do it over an in-memory bus.
    public init(
        service: String, bus: any MessageBus, topics: Topics = Topics(), logger: Logger,
        onReady: @escaping @Sendable () async throws -> Void = {}
    ) {
        self.service = service
        self.bus = bus
        self.topics = topics
        self.logger = logger
        self.errors = ErrorReporter(bus: bus, topics: topics, service: service, logger: logger)
        self.onReady = onReady
    }

    /// Says the service is ready: call it once its subscriptions are acknowledged. The runtime then
    /// publishes the `online` status (and again after every reconnect).
    public func ready() async throws {
        try await onReady()
    }
}
