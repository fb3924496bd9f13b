import Bus
import DashboardService
import Foundation
import InMemoryBus
import ServiceRuntime
import StepCompassTesting
import Testing

@Suite("Dashboard metrics")
struct DashboardMetricsTests {
    static func scrape() -> PrometheusText { PrometheusText(ServiceMetrics.text()) }

    /// Requests with these labels, whatever the process's service label (other tests make requests too).
    static func requests(_ metrics: PrometheusText, _ labels: [String: String]) -> Double {
        metrics.value("stepcompass_http_requests_total", labels) ?? 0
    }

    @Test("HTTP requests by route pattern and status, open event streams, devices tracked, handling time")
    func requestsAndStreams() async throws {
        ServiceMetrics.bootstrap()
        let service = "dashboard-metrics-test"
        let broker = InMemoryBroker()
        let bus = InMemoryBus(broker: broker, clientID: "dashboard-\(UUID().uuidString)")
        bus.connect()
        let device = InMemoryBus(broker: broker, clientID: "device-\(UUID().uuidString)", cleanStart: true)
        device.connect()
        let before = Self.scrape()
        let state = ["route": "/api/state", "method": "GET", "status": "200"]
        let history = ["route": "/api/devices/{device}/history", "method": "GET", "status": "400"]
        try await DashboardHarness.with(bus: bus, service: service) { dashboard in
            try await device.send("stepcompass/metrics-walker/steps", #"{"steps": 12}"#)
            #expect(try await dashboard.get("/api/state").status == 200)
            #expect(try await dashboard.get("/api/state?device=metrics-walker").status == 200)
            #expect(try await dashboard.get("/api/devices/no!valid/history").status == 400)
            #expect(try await dashboard.get("/no/such/page").status == 404)
            // One browser: the stream stays registered until the server next writes to it or stops.
            _ = try await dashboard.events { events in events.contains { $0.name == "services" } }
            let during = Self.scrape()
            #expect(during.value("stepcompass_dashboard_event_streams", ["service": service]) == 1)
            #expect(during.value("stepcompass_devices_tracked", ["service": service]) == 1)
            #expect(during.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "steps"]) == 1)
            #expect(Self.requests(during, state) >= Self.requests(before, state) + 2)
            #expect(Self.requests(during, history) >= Self.requests(before, history) + 1)
            #expect((during.value("stepcompass_http_request_duration_seconds_count", ["route": "/api/state"]) ?? 0) >= 2)
            let text = ServiceMetrics.text()
            #expect(!text.contains("metrics-walker") && !text.contains("/no/such/page"), "a device or a path became a label")
        }
        // The streams close when the dashboard stops.
        #expect(Self.scrape().value("stepcompass_dashboard_event_streams", ["service": service]) == 0)
    }
}
