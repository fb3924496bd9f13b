import Bus
import BusTesting
import Foundation
import InMemoryBus
import PositionService
import ServiceRuntime
import StepCompassTesting
import Testing

@Suite("Position metrics")
struct PositionMetricsTests {
    @Test("batches applied count moves of stepsPerUpdate steps, not messages; handling time by kind; devices tracked")
    func batches() async throws {
        ServiceMetrics.bootstrap()
        let service = "position-metrics-test"
        let fixture = try await InMemoryFixture()
        let running = try await RunningPositionService.start(on: fixture.serviceBus(clientID: service), service: service)
        try await fixture.probe.publish("stepcompass/walker-a/heading", #"{"status": "ok", "heading": 90}"#, qos: .atMostOnce)
        try await fixture.probe.publish("stepcompass/walker-a/steps", #"{"steps": 25}"#)  // 2 batches
        try await fixture.probe.publish("stepcompass/walker-a/steps", #"{"steps": 29}"#)  // none: a state, no batch
        try await fixture.probe.publish("stepcompass/walker-a/steps", #"{"steps": 30}"#)  // the 3rd
        try await fixture.probe.publish("stepcompass/walker-b/steps", #"{"steps": 4}"#)  // none
        let positions = try await fixture.positions(5)
        await running.stop()
        #expect(positions.count == 5)
        #expect(positions.filter { $0.steps == 30 }.first?.updates == 3)

        let metrics = PrometheusText(ServiceMetrics.text())
        #expect(metrics.value("stepcompass_position_batches_applied_total", ["service": service]) == 3)
        #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "steps"]) == 4)
        #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "heading"]) == 1)
        #expect(metrics.value("stepcompass_devices_tracked", ["service": service]) == 2)
    }
}
