import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import Logging
import ServiceRuntime
import Testing

/// A compass service running on an in-memory broker, and a device client that talks to it.
struct CompassTestHarness {
    static let model: WorldMagneticModel = {
        do { return try WorldMagneticModel.wmm2025() } catch { fatalError("WMM2025: \(error)") }
    }()
    /// A fixed, valid sample date (the model's validity is 2025...2030).
    static let start = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18
    static let boulder = (latitude: 40.015, longitude: -105.27)

    let broker: InMemoryBroker
    let device: InMemoryBus
    let topics = Topics()
    /// The service's name (its error topic and its metrics' `service` label).
    let service: String

    init(broker: InMemoryBroker = InMemoryBroker(), service: String = "compass") {
        self.broker = broker
        self.service = service
        device = InMemoryBus(broker: broker, clientID: "device-\(UUID().uuidString)", cleanStart: true)
        device.connect()
    }

    /// Runs a compass service for the duration of `body`.
    /// - Parameter clock: The service's clock (a manual one drives rate windows and staleness by hand).
    func withService<T: Sendable>(
        _ configuration: CompassConfiguration, clientID: String = "compass", clock: ServiceClock = .continuous,
        _ body: @Sendable (CompassTestHarness) async throws -> T
    ) async throws -> T {
        let bus = InMemoryBus(broker: broker, clientID: clientID)
        bus.connect()
        let ready = AsyncStream<Void>.makeStream()
        let context = BusServiceContext(
            service: service, bus: bus, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            onReady: { ready.continuation.yield() }, clock: clock)
        // The in-memory broker replays retained messages during `subscribe`: the start-up restore need not wait
        // for stragglers as it does on a real broker.
        var configuration = configuration
        configuration.restoreQuietPeriod = 0.02
        let service = try CompassService(configuration: configuration, context: context, model: Self.model)
        let task = Task { try await service.run() }
        var iterator = ready.stream.makeAsyncIterator()
        await iterator.next()
        do {
            let result = try await body(self)
            task.cancel()
            _ = try? await task.value
            bus.disconnect()
            return result
        } catch {
            task.cancel()
            _ = try? await task.value
            bus.disconnect()
            throw error
        }
    }

    func send(_ id: String, _ topic: Topics.DeviceTopic, _ text: String, retain: Bool = false) async throws {
        let qos: QoS = topic == .imu ? .atMostOnce : .atLeastOnce
        try await device.publish(BusMessage(topic: topics.device(id, topic), text: text, qos: qos, retain: retain))
    }

    func sendSample(_ id: String, at date: Date, accel: Vector3, mag: Vector3) async throws {
        try await send(id, .imu, DeviceMotion.payload(timestamp: date, accel: accel, mag: mag))
    }

    func locate(_ id: String, latitude: Double = boulder.latitude, longitude: Double = boulder.longitude) async throws {
        try await send(id, .location, "{\"latitude\":\(latitude),\"longitude\":\(longitude)}")
    }

    func retained<T: Decodable>(_ type: T.Type, _ id: String, _ topic: Topics.DeviceTopic) -> T? {
        guard let message = broker.retainedMessage(on: topics.device(id, topic)), !message.payload.isEmpty else {
            return nil
        }
        return try? JSONDecoder().decode(T.self, from: message.payload)
    }

    func heading(_ id: String) -> HeadingMessage? { retained(HeadingMessage.self, id, .heading) }

    /// Waits until the service has handled everything sent so far: it handles messages in
    /// arrival order, so the error report of a final bad message means the rest is done.
    func drain(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let marker = "drain-\(UUID().uuidString.prefix(8))"
        let errors = try await device.subscribe(to: TopicFilter(topics.errors(service)), qos: .atMostOnce)
        try await send(marker, .imu, "drain")
        while let report = await errors.next(timeout: .seconds(10)) {
            if report.text.contains(marker) {
                try await device.unsubscribe(errors)
                return
            }
        }
        Issue.record("the service did not handle the drain marker", sourceLocation: sourceLocation)
    }

    /// Polls until `condition` holds on the device's retained heading, or fails the test.
    @discardableResult
    func waitForHeading(
        _ id: String, timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (HeadingMessage) -> Bool
    ) async throws -> HeadingMessage? {
        try await waitFor(timeout: timeout, sourceLocation: sourceLocation) { heading(id).flatMap { condition($0) ? $0 : nil } }
    }

    /// Polls every 5 ms until `probe` gives a value, or records a failure after `timeout` seconds.
    func waitFor<T>(
        timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation, _ probe: () -> T?
    ) async throws -> T? {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if let value = probe() { return value }
            try await Task.sleep(for: .milliseconds(5))
        }
        let value = probe()
        if value == nil { Issue.record("timed out after \(timeout) s", sourceLocation: sourceLocation) }
        return value
    }

    /// The WMM field at Boulder on the test date.
    static func boulderField(at date: Date = start) -> MagneticField {
        do {
            return try model.field(latitude: boulder.latitude, longitude: boulder.longitude, altitude: 0, date: date)
        } catch {
            fatalError("\(error)")
        }
    }
}
