import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import MarkerKit
import MosquittoBus
import ServiceRuntime
import StepCompassTesting
import Testing

@testable import MarkerService

/// A marker service on an in-memory bus, with a client bus for the test.
struct MarkerServiceHarness: Sendable {
    let client: InMemoryBus
    let broker: InMemoryBroker
    let topics = Topics()

    /// A configuration for tests: short timeouts and backoff, its own cache folder.
    static func configuration(source: String, cacheDirectory: String? = nil) -> MarkerServiceConfiguration {
        MarkerServiceConfiguration(
            source: source,
            cacheDirectory: cacheDirectory ?? temporaryDirectory(),
            connectTimeout: .seconds(2), readTimeout: .seconds(2), fetchDeadline: .seconds(6),
            maxBodyBytes: 256 * 1024, maxRedirects: 4, refreshInterval: .seconds(3600),
            retryBase: .milliseconds(40), retryMax: .milliseconds(200))
    }

    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("markers-test-\(UUID().uuidString)").path
    }

    /// Runs a service with `configuration` until `body` returns; its refresh timer sleeps on `clock`.
    static func run<T: Sendable>(
        _ configuration: MarkerServiceConfiguration, broker: InMemoryBroker = InMemoryBroker(), service: String = "markers",
        clock: some Clock<Duration> = ContinuousClock(),
        _ body: @Sendable (MarkerServiceHarness) async throws -> T
    ) async throws -> T {
        let serviceBus = InMemoryBus(broker: broker, clientID: "stepcompass-markers-\(UUID().uuidString)")
        serviceBus.connect()
        let client = InMemoryBus(broker: broker, clientID: "test-\(UUID().uuidString)")
        client.connect()
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
        let context = BusServiceContext(
            service: service, bus: serviceBus, logger: Logger(label: "markers-test"), onReady: { readyContinuation.yield() },
            clock: ServiceClock(clock))
        let service = try MarkerService(configuration: configuration, context: context)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await service.run()
                return nil
            }
            var iterator = ready.makeAsyncIterator()
            _ = await iterator.next()
            let result = try await body(MarkerServiceHarness(client: client, broker: broker))
            group.cancelAll()
            while (try await group.next()) != nil {}
            return result
        }
    }

    /// Subscribes to the status topic (the retained one first).
    func statuses() async throws -> BusSubscription {
        try await client.subscribe(to: try TopicFilter(topics.markersStatus))
    }

    /// The first status on `subscription` that satisfies `predicate`, within `timeout`.
    func status(
        on subscription: BusSubscription, timeout: Duration = .seconds(60),
        where predicate: (MarkersStatusMessage) -> Bool
    ) async -> MarkersStatusMessage? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = await subscription.next(timeout: deadline - ContinuousClock.now) else { return nil }
            if let status = try? JSONDecoder().decode(MarkersStatusMessage.self, from: message.payload), predicate(status) {
                return status
            }
        }
        return nil
    }

    /// Sends a nearest request (MQTT 5 style, on the in-memory bus) and returns the reply as JSON.
    func nearest(_ json: String) async throws -> [String: Any] {
        let reply = try await client.request(
            BusMessage(topic: topics.markersNearest, text: json, qos: .atLeastOnce),
            replyTopic: "stepcompass/replies/\(UUID().uuidString)", timeout: .seconds(5))
        return try #require(try JSONSerialization.jsonObject(with: reply.payload) as? [String: Any])
    }

    /// Asks for a refresh.
    func refresh() async throws {
        try await client.publish(BusMessage(topic: topics.markersRefresh, text: "{}", qos: .atLeastOnce))
    }
}

/// Test documents.
enum Documents {
    /// A FeatureCollection of `markers`, plus `invalid` features with no name.
    static func collection(_ markers: [Marker], invalid: Int = 0) -> String {
        var features = markers.map { marker in
            #"{"type":"Feature","id":"\#(marker.id)","geometry":{"type":"Point","coordinates":[\#(marker.longitude),\#(marker.latitude)]},"properties":{"name":"\#(marker.name)"}}"#
        }
        for i in 0..<invalid {
            features.append(
                #"{"type":"Feature","id":"bad-\#(i)","geometry":{"type":"Point","coordinates":[11.5,48.1]},"properties":{}}"#
            )
        }
        return #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#
    }

    /// `count` pseudo-random markers around Munich, deterministic for a seed.
    static func randomMarkers(count: Int, seed: UInt64) -> [Marker] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { i in
            Marker(
                id: "m\(i)", name: "Marker \(i)",
                latitude: Double.random(in: 47.9...48.4, using: &generator),
                longitude: Double.random(in: 11.2...11.9, using: &generator))
        }
    }

    static let small: [Marker] = randomMarkers(count: 12, seed: 7)
}
