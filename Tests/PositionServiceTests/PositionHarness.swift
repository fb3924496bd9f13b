import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import PositionService
import ServiceRuntime

/// A position service running on a bus, with the test's helpers to publish inputs and read positions.
struct RunningPositionService {
    let task: Task<Void, any Error>

    /// Starts the service on `bus` and returns once it has called `ready()`; `clock` is the service's clock (a manual
    /// one to make devices idle by hand).
    static func start(
        on bus: any MessageBus, configuration: PositionConfiguration = PositionConfiguration(), service: String = "position",
        clock: ServiceClock = .continuous
    ) async throws -> RunningPositionService {
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
        let context = BusServiceContext(
            service: service, bus: bus, logger: Logger(label: "test.position"), onReady: { readyContinuation.yield() }, clock: clock)
        let service = try PositionService(configuration: configuration, context: context)
        let task = Task { try await service.run() }
        var iterator = ready.makeAsyncIterator()
        await iterator.next()
        return RunningPositionService(task: task)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

extension PositionMessage {
    /// The body of a `position` message, with every field the service always writes (`heading` may be null).
    static func decode(_ message: BusMessage) throws -> PositionMessage {
        let position = try JSONDecoder().decode(PositionMessage.self, from: message.payload)
        guard position.timestamp != nil, position.steps != nil, position.sessionSteps != nil, position.distance != nil,
            position.updates != nil
        else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a contract field is missing")) }
        return position
    }
}

/// The decoded body of an error report.
struct ErrorReportMessage: Decodable {
    let topic: String
    let error: String
    let payload: String
}

extension MessageBus {
    func publish(_ topic: String, _ json: String, qos: QoS = .atLeastOnce, retain: Bool = false) async throws {
        try await publish(BusMessage(topic: topic, text: json, qos: qos, retain: retain))
    }
}

/// A fresh in-memory broker with a connected service bus and probe bus.
struct InMemoryFixture {
    let broker = InMemoryBroker()
    let topics = Topics()
    let probe: InMemoryBus
    let positionFeed: BusSubscription
    let errors: BusSubscription

    init() async throws {
        probe = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
        probe.connect()
        positionFeed = try await probe.subscribe(to: TopicFilter(topics.allDevices(.position)))
        errors = try await probe.subscribe(to: TopicFilter(topics.errors("position")))
    }

    func serviceBus(clientID: String = "stepcompass-position") -> InMemoryBus {
        let bus = InMemoryBus(broker: broker, clientID: clientID, cleanStart: false)
        bus.connect()
        return bus
    }

    /// Positions published so far, decoded, waiting at most `timeout` for `count` of them (it returns as
    /// soon as they are there: the generous default only matters on a loaded machine or when one is missing).
    ///
    /// `stepcompass/+/position` also matches the error topic `stepcompass/errors/position`; those are skipped.
    func positions(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [PositionMessage] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var found: [PositionMessage] = []
        while found.count < count, ContinuousClock.now < deadline {
            guard let message = await positionFeed.next(timeout: ContinuousClock.now.duration(to: deadline)) else { break }
            if message.topic == topics.errors("position") || message.payload.isEmpty { continue }  // a report; a cleared one
            found.append(try PositionMessage.decode(message))
        }
        return found
    }
}
