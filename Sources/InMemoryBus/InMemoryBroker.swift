public import Bus

/// An in-process MQTT broker for unit tests: the twin of a real `mosquitto`.
///
/// It keeps the semantics the services rely on: `+`/`#` matching (and `$` topics hidden from leading
/// wildcards), retained messages (set, replace, clear with an empty payload, replayed on subscribe with
/// `retain` set), QoS downgrade to the subscription's QoS, No Local (a client's own live messages are not sent back
/// through a subscription that asked so; its own retained messages are, as mosquitto does), last wills on an abnormal disconnect, QoS 1/2
/// messages queued for an offline persistent session, and MQTT 5 properties passed through untouched.
/// Delivery is synchronous and in publish order, so tests are deterministic.
public final class InMemoryBroker: Sendable {
    struct Session {
        var subscriptions: [SubscriptionRequest] = []
        var persistent: Bool
        var connection: Connection?
        var queue: [BusMessage] = []
    }

    struct Connection {
        let id: Int
        let router: SubscriptionRouter
        let will: BusMessage?
    }

    struct State {
        var sessions: [String: Session] = [:]
        var retained: [String: BusMessage] = [:]
        var nextConnectionID = 1
        var published = 0
    }

    private let state = LockedValue(State())

    /// Creates an empty broker.
    public init() {}

    /// The number of messages published through this broker so far (for tests).
    public var publishedCount: Int { state.withLock { $0.published } }

    /// The retained message of a topic, if any.
    public func retainedMessage(on topic: String) -> BusMessage? {
        state.withLock { $0.retained[topic] }
    }

    // MARK: Used by InMemoryBus

    func connect(clientID: String, cleanStart: Bool, will: BusMessage?, router: SubscriptionRouter) -> Int {
        state.withLock { state in
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            if cleanStart || state.sessions[clientID] == nil {
                state.sessions[clientID] = Session(persistent: !cleanStart)
            }
            state.sessions[clientID]?.persistent = !cleanStart
            state.sessions[clientID]?.connection = Connection(id: id, router: router, will: will)
            let queued = state.sessions[clientID]?.queue ?? []
            state.sessions[clientID]?.queue = []
            for message in queued { router.route(message) }
            return id
        }
    }

    func disconnect(clientID: String, connectionID: Int, publishWill: Bool) {
        let will: BusMessage? = state.withLock { state in
            guard let session = state.sessions[clientID], session.connection?.id == connectionID else { return nil }
            let will = session.connection?.will
            if session.persistent {
                state.sessions[clientID]?.connection = nil
            } else {
                state.sessions[clientID] = nil
            }
            return will
        }
        if publishWill, let will { publish(will, from: clientID) }  // its own No Local subscriptions skip it, as in mosquitto
    }

    func subscribe(clientID: String, requests: [SubscriptionRequest]) {
        state.withLock { state in
            guard var session = state.sessions[clientID], let connection = session.connection else { return }
            for request in requests {
                if let index = session.subscriptions.firstIndex(where: { $0.filter == request.filter }) {
                    session.subscriptions[index] = request
                } else {
                    session.subscriptions.append(request)
                }
            }
            state.sessions[clientID] = session
            for topic in state.retained.keys.sorted() {
                guard var message = state.retained[topic],
                    let request = requests.first(where: { $0.filter.matches(topic) })
                else { continue }
                message.qos = min(message.qos, request.qos)
                message.retain = true
                connection.router.route(message)
            }
        }
    }

    func unsubscribe(clientID: String, filters: [TopicFilter]) {
        state.withLock { state in
            state.sessions[clientID]?.subscriptions.removeAll { filters.contains($0.filter) }
        }
    }

    /// Publishes `message` for the client `publisher` (nil: the broker itself), whose No Local subscriptions skip it.
    func publish(_ message: BusMessage, from publisher: String? = nil) {
        state.withLock { state in
            state.published += 1
            if message.retain {
                if message.payload.isEmpty {
                    state.retained[message.topic] = nil
                } else {
                    state.retained[message.topic] = message
                }
            }
            for clientID in state.sessions.keys.sorted() {
                guard let session = state.sessions[clientID] else { continue }
                let own = clientID == publisher
                let granted = session.subscriptions.filter { $0.filter.matches(message.topic) && !(own && $0.noLocal) }
                    .map(\.qos).max()
                guard let granted else { continue }
                var delivered = message
                delivered.qos = min(message.qos, granted)
                delivered.retain = false
                if let connection = session.connection {
                    connection.router.route(delivered)
                } else if session.persistent && delivered.qos > .atMostOnce {
                    state.sessions[clientID]?.queue.append(delivered)
                }
            }
        }
    }
}
