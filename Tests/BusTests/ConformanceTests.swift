import Bus
import BusTesting
import MosquittoBus
import Testing

/// The same conformance body against the in-memory twin and a real mosquitto, so they cannot drift.
@Suite("Bus conformance")
struct ConformanceTests {
    @Test("in-memory twin", arguments: BusConformance.allCases)
    func inMemory(_ check: BusConformance) async throws {
        try await check.run(on: InMemoryHarness())
    }

    @Test("mosquitto, MQTT 5", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests), arguments: BusConformance.allCases)
    func mosquittoV5(_ check: BusConformance) async throws {
        try await withBroker { broker in
            try await check.run(on: MosquittoHarness(port: broker.port, protocolVersion: .v5))
        }
    }

    @Test("mosquitto, MQTT 3.1.1", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests), arguments: BusConformance.allCases)
    func mosquittoV311(_ check: BusConformance) async throws {
        try await withBroker { broker in
            try await check.run(on: MosquittoHarness(port: broker.port, protocolVersion: .v311))
        }
    }
}
