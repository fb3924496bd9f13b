public import Bus
public import InMemoryBus
import Logging
public import MosquittoBus

/// A client made by a ``BusHarness``: a bus that can also go away cleanly or abruptly.
public protocol HarnessClient: ConnectableBus {
    /// Disconnects cleanly: no last will, the session is kept.
    func close() async
    /// Loses the connection as a crash would: the broker publishes the last will.
    func crash() async
}

/// Makes connected clients of one broker for the conformance suite: the in-memory twin, or a real
/// mosquitto.
public protocol BusHarness: Sendable {
    /// A name for test output.
    var name: String { get }
    /// Creates and connects a client.
    func makeClient(id: String, cleanStart: Bool, will: BusMessage?) async throws -> any HarnessClient
    /// Whether the implementation carries MQTT 5 properties (false for an MQTT 3.1.1 connection).
    var carriesProperties: Bool { get }
    /// Whether the implementation honours MQTT 5's No Local subscription option (false over MQTT 3.1.1).
    var honoursNoLocal: Bool { get }
}

extension BusHarness {
    /// MQTT 5 has No Local wherever it carries properties.
    public var honoursNoLocal: Bool { carriesProperties }
}

extension InMemoryBus: HarnessClient {
    public func close() async { disconnect() }
    public func crash() async { simulateConnectionLoss() }
}

extension MosquittoBus: HarnessClient {
    public func close() async { await disconnect() }
    public func crash() async { await simulateConnectionLoss() }
}

/// The in-memory twin.
public struct InMemoryHarness: BusHarness {
    public let broker = InMemoryBroker()
    public var name: String { "in-memory" }
    public var carriesProperties: Bool { true }
    public init() {}

    public func makeClient(id: String, cleanStart: Bool, will: BusMessage?) async throws -> any HarnessClient {
        let bus = InMemoryBus(broker: broker, clientID: id, cleanStart: cleanStart, will: will)
        bus.connect()
        return bus
    }
}

/// A real mosquitto broker reached through libmosquitto.
public struct MosquittoHarness: BusHarness {
    public let port: Int
    public let protocolVersion: MosquittoConfiguration.ProtocolVersion
    public var name: String { "mosquitto (MQTT \(protocolVersion.rawValue))" }
    public var carriesProperties: Bool { protocolVersion == .v5 }

    public init(port: Int, protocolVersion: MosquittoConfiguration.ProtocolVersion = .v5) {
        self.port = port
        self.protocolVersion = protocolVersion
    }

    public func makeClient(id: String, cleanStart: Bool, will: BusMessage?) async throws -> any HarnessClient {
        let configuration = MosquittoConfiguration(
            host: "127.0.0.1", port: port, clientID: id, protocolVersion: protocolVersion, cleanStart: cleanStart,
            will: will, reconnectDelay: .milliseconds(50), reconnectDelayMax: .milliseconds(500))
        let bus = try MosquittoBus(configuration: configuration, logger: Logger(label: "test.\(id)"))
        try await bus.connect(timeout: .seconds(10))
        return bus
    }
}
