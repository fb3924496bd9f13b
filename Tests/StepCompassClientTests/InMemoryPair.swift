import Bus
import Foundation
import InMemoryBus
import ServiceRuntime

/// An in-memory broker with the client under test and a second client playing the services.
struct InMemoryPair {
    let broker = InMemoryBroker()
    let client: InMemoryBus
    let services: InMemoryBus
    let topics = Topics()

    init() {
        client = InMemoryBus(broker: broker, clientID: "stepcompass-cli-test", cleanStart: true)
        client.connect()
        services = InMemoryBus(broker: broker, clientID: "services")
        services.connect()
    }

    /// Publishes a JSON payload as the services would.
    func publish(_ topic: String, _ json: String, retain: Bool = false) async throws {
        try await services.publish(BusMessage(topic: topic, text: json, qos: .atLeastOnce, retain: retain))
    }
}

/// Text written by a watch session, gathered for the test to read.
final class Transcript: Sendable {
    private let chunks = LockedValue<[String]>([])

    func append(_ text: String) {
        chunks.withLock { $0.append(text) }
    }

    var all: [String] { chunks.withLock { $0 } }

    /// Waits until `condition` holds for what was written, or `timeout` passes.
    func wait(timeout: Duration = .seconds(90), until condition: ([String]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(all)
    }
}
