import Bus
import BusTesting
import Foundation
import InMemoryBus
import MarkerKit
import ServiceRuntime
import StepCompassTesting
import Testing

@testable import MarkerService

@Suite("Marker metrics")
struct MarkerMetricsTests {
    static func scrape() -> PrometheusText { PrometheusText(ServiceMetrics.text()) }

    @Test("markers in service, nearest queries by outcome with their latency, nearby devices tracked")
    func queries() async throws {
        ServiceMetrics.bootstrap()
        let service = "markers-metrics-queries"
        let configuration = MarkerServiceHarness.configuration(source: try MarkerNearestTests.fileSource(Documents.small, invalid: 2))
        try await MarkerServiceHarness.run(configuration, service: service) { harness in
            let statuses = try await harness.statuses()
            _ = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            #expect(try await harness.nearest(#"{"id": "m1", "count": 3}"#)["nearest"] != nil)
            #expect(try await harness.nearest(#"{"latitude": 48.1, "longitude": 11.5}"#)["nearest"] != nil)
            #expect(try await harness.nearest(#"{"id": "no-such-marker"}"#)["error"] != nil)
            #expect(try await harness.nearest(#"{"latitude": 123, "longitude": 11.5}"#)["error"] != nil)
            // Two devices' fixes: a nearby list each.
            let nearby = try await harness.client.subscribe(to: TopicFilter("stepcompass/+/nearby"))
            for device in ["walker-1", "walker-2"] {
                try await harness.client.publish(
                    BusMessage(
                        topic: "stepcompass/\(device)/location", text: #"{"latitude": 48.13, "longitude": 11.57}"#, qos: .atLeastOnce))
            }
            _ = await nearby.collect(2, timeout: .seconds(5))
        }
        let metrics = Self.scrape()
        let labels = ["service": service]
        #expect(metrics.value("stepcompass_markers_in_service", labels) == 12)
        #expect(metrics.value("stepcompass_markers_nearest_queries_total", ["service": service, "outcome": "ok"]) == 2)
        #expect(metrics.value("stepcompass_markers_nearest_queries_total", ["service": service, "outcome": "notFound"]) == 1)
        #expect(metrics.value("stepcompass_markers_nearest_queries_total", ["service": service, "outcome": "badRequest"]) == 1)
        #expect(metrics.value("stepcompass_markers_nearest_query_seconds_count", labels) == 4)
        #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "markers/nearest"]) == 4)
        #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "location"]) == 2)
        #expect(metrics.value("stepcompass_devices_tracked", labels) == 2)
        #expect(metrics.value("stepcompass_markers_fetch_failures_total", labels) == nil)
    }

    @Test("fetch failures are counted by code while the service retries")
    func fetchFailures() async throws {
        ServiceMetrics.bootstrap()
        let service = "markers-metrics-failures"
        let missing = MarkerServiceHarness.temporaryDirectory() + "/no-such-file.geojson"
        let configuration = MarkerServiceHarness.configuration(source: missing)
        try await MarkerServiceHarness.run(configuration, service: service) { harness in
            let statuses = try await harness.statuses()
            // The retries back off from 40 ms: a few failures within a moment.
            var failed = 0
            while failed < 3, await harness.status(on: statuses, where: { $0.state == "failed" }) != nil { failed += 1 }
            #expect(failed == 3)
        }
        let metrics = Self.scrape()
        let failures = metrics.value("stepcompass_markers_fetch_failures_total", ["service": service, "code": "fileError"]) ?? 0
        #expect(failures >= 3)
        #expect(metrics.value("stepcompass_markers_in_service", ["service": service]) ?? 0 == 0)
    }
}
