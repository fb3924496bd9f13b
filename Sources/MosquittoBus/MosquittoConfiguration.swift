public import Bus

/// How a ``MosquittoBus`` connects and behaves.
///
/// Defaults suit a StepCompass service: MQTT 5, a persistent session that outlives a restart for a day,
/// `TCP_NODELAY`, and a cap of 1,000 unacknowledged publishes (packet ids are 16-bit: more than 65,535
/// in flight silently lose data in libmosquitto).
public struct MosquittoConfiguration: Sendable {
    /// The MQTT protocol version.
    public enum ProtocolVersion: String, Sendable, CaseIterable {
        case v5 = "5"
        case v311 = "3.1.1"
    }

    /// TLS settings (server verification with a CA file, optional client certificate).
    public struct TLS: Sendable, Equatable {
        public var caFile: String
        public var certificateFile: String?
        public var keyFile: String?

        public init(caFile: String, certificateFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    public var host: String
    public var port: Int
    /// A stable client id: the key of the persistent session.
    public var clientID: String
    public var username: String?
    public var password: String?
    public var tls: TLS?
    public var protocolVersion: ProtocolVersion
    /// Seconds between keep-alive pings (at least 5).
    public var keepAlive: Int
    /// Start a new session on connect instead of resuming the stored one.
    public var cleanStart: Bool
    /// Seconds the broker keeps the session (subscriptions and queued QoS 1/2 messages) after a disconnect.
    public var sessionExpiry: UInt32
    /// Published by the broker when the connection is lost without a clean disconnect.
    public var will: BusMessage?
    /// The most publishes handed to libmosquitto and not yet acknowledged (QoS 1/2) or written (QoS 0);
    /// `publish` suspends beyond it. Must be below 65,535.
    public var maxInflight: Int
    /// Disable Nagle's algorithm (`MOSQ_OPT_TCP_NODELAY`): without it QoS 1/2 round trips take 40-90 ms.
    public var tcpNoDelay: Bool
    /// The first reconnect delay; it doubles up to ``reconnectDelayMax``.
    public var reconnectDelay: Duration
    public var reconnectDelayMax: Duration
    /// Messages buffered per subscription before the newest are dropped (and counted and logged).
    public var subscriptionBuffer: Int
    /// Sees the traffic and the connection, for metrics (nil: nobody).
    public var observer: (any BusObserver)?

    /// Creates a configuration.
    public init(
        host: String = "localhost",
        port: Int = 1883,
        clientID: String,
        username: String? = nil,
        password: String? = nil,
        tls: TLS? = nil,
        protocolVersion: ProtocolVersion = .v5,
        keepAlive: Int = 30,
        cleanStart: Bool = false,
        sessionExpiry: UInt32 = 86_400,
        will: BusMessage? = nil,
        maxInflight: Int = 1_000,
        tcpNoDelay: Bool = true,
        reconnectDelay: Duration = .milliseconds(250),
        reconnectDelayMax: Duration = .seconds(30),
        subscriptionBuffer: Int = 1_000_000
    ) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.username = username
        self.password = password
        self.tls = tls
        self.protocolVersion = protocolVersion
        self.keepAlive = keepAlive
        self.cleanStart = cleanStart
        self.sessionExpiry = sessionExpiry
        self.will = will
        self.maxInflight = maxInflight
        self.tcpNoDelay = tcpNoDelay
        self.reconnectDelay = reconnectDelay
        self.reconnectDelayMax = reconnectDelayMax
        self.subscriptionBuffer = subscriptionBuffer
    }

    /// Checks the ranges libmosquitto and MQTT impose.
    public func validate() throws(BusError) {
        guard !host.isEmpty else { throw BusError(.invalidConfiguration, "the MQTT host is empty") }
        guard (1...65_535).contains(port) else {
            throw BusError(.invalidConfiguration, "MQTT port \(port) is not in 1...65535")
        }
        guard !clientID.isEmpty, clientID.utf8.count <= 65_535 else {
            throw BusError(.invalidConfiguration, "the MQTT client id must not be empty")
        }
        guard keepAlive >= 5 else {
            throw BusError(.invalidConfiguration, "keep-alive \(keepAlive) s is below libmosquitto's minimum of 5 s")
        }
        guard (1..<65_535).contains(maxInflight) else {
            throw BusError(
                .invalidConfiguration,
                "max in-flight \(maxInflight) must be 1...65534: MQTT packet ids are 16-bit")
        }
        if let will { try TopicName.validate(will.topic) }
    }
}
