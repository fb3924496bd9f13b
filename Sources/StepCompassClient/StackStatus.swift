public import Bus
public import Foundation
public import ServiceRuntime

/// What `stepcompass status` shows: every service's retained status and what the broker says about itself.
public struct StackStatus: Sendable, Equatable {
    /// The services of the stack, in the order they are listed.
    public static let services = ["sensors", "compass", "position", "markers", "dashboard", "bridge", "activity", "journal"]

    /// Mosquitto's own topics read for the broker line (`$SYS`, published every `sys_interval` seconds, retained).
    public enum SystemTopic {
        public static let version = "$SYS/broker/version"
        public static let uptime = "$SYS/broker/uptime"
        public static let clientsConnected = "$SYS/broker/clients/connected"
        public static let all = [version, uptime, clientsConnected]
    }

    /// One service's line.
    public struct Service: Sendable, Equatable {
        /// What its retained status says.
        public enum State: String, Sendable, Hashable {
            case online, offline
            /// No retained status: the service never ran against this broker (or its status was cleared).
            case missing
            /// A retained status that is not the contract's.
            case unreadable
        }

        public let name: String
        public let state: State
        /// The retained status, when it could be read.
        public let status: ServiceStatus?

        public init(name: String, state: State, status: ServiceStatus?) {
            self.name = name
            self.state = state
            self.status = status
        }

        /// When the service started (its status's `startedAt`).
        public var startedAt: Date? { status.flatMap { Timestamp.parse($0.startedAt) } }
    }

    /// What the broker publishes about itself under `$SYS`.
    public struct Broker: Sendable, Hashable {
        /// Whether `$SYS` could be read at all, and if not, why.
        public enum Access: Sendable, Hashable {
            /// The broker answered with at least one of its `$SYS` topics.
            case readable
            /// The broker refused the subscription (its ACL does not let this user read `$SYS`).
            case refused(String)
            /// Nothing came: the broker's ACL withholds `$SYS` (mosquitto 2.0 grants the subscription and then
            /// delivers nothing, measured), or it does not publish `$SYS` (`sys_interval 0`, or not mosquitto).
            case silent
        }

        public var access: Access
        /// `mosquitto version 2.0.11`.
        public var version: String?
        /// Seconds since the broker started, as of its last `$SYS` update.
        public var uptimeSeconds: Int?
        /// Clients connected, this one included.
        public var clientsConnected: Int?

        public init(access: Access, version: String? = nil, uptimeSeconds: Int? = nil, clientsConnected: Int? = nil) {
            self.access = access
            self.version = version
            self.uptimeSeconds = uptimeSeconds
            self.clientsConnected = clientsConnected
        }
    }

    /// The known services in their order, then any other service with a status, by name.
    public var services: [Service]
    public var broker: Broker

    public init(services: [Service], broker: Broker) {
        self.services = services
        self.broker = broker
    }

    /// Whether every service listed is online (the exit status 0 of `stepcompass status`).
    public var allOnline: Bool { services.allSatisfy { $0.state == .online } }

    /// The services that are not online.
    public var notOnline: [Service] { services.filter { $0.state != .online } }

    /// Builds the status from retained messages: `{prefix}/services/{service}/status` and the broker's `$SYS` topics.
    public init(messages: [BusMessage], topics: Topics, brokerAccess: Broker.Access) {
        var statuses: [String: (state: Service.State, status: ServiceStatus?)] = [:]
        var broker = Broker(access: brokerAccess)
        let statusPrefix = "\(topics.prefix)/services/"
        for message in messages {
            switch message.topic {
            case SystemTopic.version:
                broker.version = message.text.trimmingCharacters(in: .whitespacesAndNewlines)
            case SystemTopic.uptime:
                // `12345 seconds`
                broker.uptimeSeconds = message.text.split(separator: " ").first.flatMap { Int($0) }
            case SystemTopic.clientsConnected:
                broker.clientsConnected = Int(message.text.trimmingCharacters(in: .whitespacesAndNewlines))
            default:
                guard message.topic.hasPrefix(statusPrefix), message.topic.hasSuffix("/status") else { continue }
                let name = String(message.topic.dropFirst(statusPrefix.count).dropLast("/status".count))
                guard !name.isEmpty, !name.contains("/") else { continue }
                if message.payload.isEmpty {
                    statuses[name] = nil  // cleared
                } else if let status = try? JSONDecoder().decode(ServiceStatus.self, from: message.payload) {
                    statuses[name] = (status.state == .online ? .online : .offline, status)
                } else {
                    statuses[name] = (.unreadable, nil)
                }
            }
        }
        if case .silent = broker.access, broker.version != nil || broker.uptimeSeconds != nil || broker.clientsConnected != nil {
            broker.access = .readable
        }
        let others = statuses.keys.filter { !Self.services.contains($0) }.sorted()
        self.services = (Self.services + others).map { name in
            guard let found = statuses[name] else { return Service(name: name, state: .missing, status: nil) }
            return Service(name: name, state: found.state, status: found.status)
        }
        self.broker = broker
    }

    /// The table of `stepcompass status`: service, state, version, up since (UTC) and uptime, then a summary line
    /// and the broker's line.
    /// - Parameter now: The time uptimes are counted to.
    public func lines(now: Date = Date()) -> [String] {
        let rows = services.map { service -> [String] in
            let state =
                switch service.state {
                case .online: "online"
                case .offline: "offline"
                case .missing: "never seen"
                case .unreadable: "unreadable status"
                }
            let started = service.state == .online ? service.startedAt : nil
            return [
                service.name, state, service.status?.version ?? "—",
                started.map(ClientText.utc) ?? "—",
                started.map { ClientText.span(now.timeIntervalSince($0)) } ?? "—",
            ]
        }
        var lines = ClientText.table(["service", "state", "version", "up since (UTC)", "uptime"], rows)
        lines.append("")
        let online = services.filter { $0.state == .online }.count
        var summary = "\(online) of \(services.count) services online"
        let groups: [(String, Service.State)] = [("offline", .offline), ("never seen", .missing), ("unreadable status", .unreadable)]
        for (label, state) in groups {
            let names = services.filter { $0.state == state }.map(\.name)
            if !names.isEmpty { summary += "; \(label): \(names.joined(separator: ", "))" }
        }
        lines.append(summary)
        lines.append(brokerLine)
        return lines
    }

    /// `broker: mosquitto version 2.0.11, up 3 h 12 min, 9 clients connected (this one included)`, or why the broker
    /// said nothing about itself.
    public var brokerLine: String {
        switch broker.access {
        case .refused(let reason):
            return "broker: not allowed to read $SYS (\(reason)): the broker's ACL keeps it from this user"
        case .silent:
            return "broker: no $SYS messages: its ACL keeps $SYS from this user (mosquitto then sends nothing) or it publishes none (sys_interval 0)"
        case .readable:
            var parts = [broker.version ?? "version unknown"]
            if let uptime = broker.uptimeSeconds { parts.append("up \(ClientText.span(Double(uptime)))") }
            if let clients = broker.clientsConnected {
                parts.append("\(clients) client\(clients == 1 ? "" : "s") connected (this one included)")
            }
            return "broker: " + parts.joined(separator: ", ")
        }
    }

    /// `stepcompass status --json`: `{"allOnline", "services": [{"service", "state", "version", "startedAt",
    /// "uptimeSeconds"}], "broker": {"readable", "reason", "version", "uptimeSeconds", "clientsConnected"}}`; `state`
    /// is `online`, `offline`, `missing` (never seen) or `unreadable`; values not known are null.
    public func json(now: Date = Date()) -> Data {
        func value(_ optional: Any?) -> Any { optional ?? NSNull() }
        let list: [[String: Any]] = services.map { service in
            let started = service.state == .online ? service.startedAt : nil
            return [
                "service": service.name,
                "state": service.state.rawValue,
                "version": value(service.status?.version),
                "startedAt": value(service.status?.startedAt),
                "uptimeSeconds": value(started.map { max(0, Int(now.timeIntervalSince($0).rounded(.down))) }),
            ]
        }
        let (readable, reason): (Bool, String?) =
            switch broker.access {
            case .readable: (true, nil)
            case .refused(let reason): (false, "refused: \(reason)")
            case .silent: (false, "no $SYS messages")
            }
        let brokerObject: [String: Any] = [
            "readable": readable,
            "reason": value(reason),
            "version": value(broker.version),
            "uptimeSeconds": value(broker.uptimeSeconds),
            "clientsConnected": value(broker.clientsConnected),
        ]
        return ClientText.json(["allOnline": allOnline, "services": list, "broker": brokerObject])
    }
}

/// Reads ``StackStatus`` from the broker: the retained service statuses and the broker's `$SYS` topics, in one
/// subscription ended by a sync marker (see ``DeviceDiscovery``), never after a fixed sleep.
public struct StackStatusReader: Sendable {
    public let bus: any MessageBus
    public let topics: Topics
    /// The longest wait for the retained messages (normally over in milliseconds).
    public var window: Duration

    public init(bus: any MessageBus, topics: Topics, window: Duration = .seconds(2)) {
        self.bus = bus
        self.topics = topics
        self.window = window
    }

    /// The services' statuses and the broker's. A broker that refuses `$SYS` is read again without it.
    public func read() async throws -> StackStatus {
        let statuses = topics.serviceStatus("+")
        do {
            let messages = try await RetainedSnapshot.read(
                bus: bus, topics: topics, filters: [statuses] + StackStatus.SystemTopic.all, window: window)
            return StackStatus(messages: messages, topics: topics, brokerAccess: .silent)
        } catch let error as BusError where error.code == .subscriptionRejected || error.code == .notAuthorized {
            let messages = try await RetainedSnapshot.read(bus: bus, topics: topics, filters: [statuses], window: window)
            return StackStatus(messages: messages, topics: topics, brokerAccess: .refused(Self.reason(error)))
        }
    }

    /// `not authorized` from `the broker refused the subscription to '$SYS/...' (reason 135): not authorized`.
    private static func reason(_ error: BusError) -> String {
        let message = error.message
        if let colon = message.range(of: "): ") { return String(message[colon.upperBound...]) }
        return message
    }
}
