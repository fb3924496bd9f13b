import BridgeService
import Bus
import BusTesting
import Foundation
import InMemoryBus
import ServiceRuntime
import StepCompassTesting
import Testing
import WalkerSimulation

@Suite("Phone bridge metrics")
struct BridgeMetricsTests {
    static func scrape() -> PrometheusText { PrometheusText(ServiceMetrics.text()) }

    /// Requests to the push route with `status`, whatever the process's service label (other tests push too).
    static func pushes(_ metrics: PrometheusText, status: String) -> Double {
        metrics.value("stepcompass_http_requests_total", ["route": "/sensor-logger", "method": "POST", "status": status]) ?? 0
    }

    @Test("batches by source, HTTP requests by route and status, detector steps, devices tracked")
    func batchesAndSteps() async throws {
        ServiceMetrics.bootstrap()
        let service = "bridge-metrics-test"
        let broker = InMemoryBroker()
        let probe = InMemoryBus(broker: broker, clientID: "probe", cleanStart: true)
        probe.connect()
        let locations = try await probe.subscribe(to: TopicFilter("stepcompass/+/location"))
        let steps = try await probe.subscribe(to: TopicFilter("stepcompass/+/steps"))
        let phone = InMemoryBus(broker: broker, clientID: "phone", cleanStart: true)
        phone.connect()
        let before = Self.scrape()
        try await BridgeHarness.with(bus: InMemoryBus(broker: broker, clientID: "stepcompass-bridge"), service: service, metrics: true) { bridge in
            #expect(try await bridge.push(SensorLoggerBodies.android(), query: "device=metrics-phone").status == 200)
            #expect(try await bridge.push(SensorLoggerBodies.android(messageId: 2, start: 200), query: "device=metrics-phone").status == 200)
            #expect(try await bridge.push("{not json", query: "device=metrics-phone").status == 400)
            try await phone.publish(
                BusMessage(
                    topic: "owntracks/alice/metrics", text: #"{"_type":"location","lat":48.1,"lon":11.5,"tst":1795341600}"#, qos: .atLeastOnce))
            _ = await locations.collect(3, timeout: .seconds(5))
            // 20 s of a walker's accelerometer with no pedometer: detector steps.
            var walker = try WalkerSimulator(configuration: WalkerConfiguration(), fieldSource: ConstantGeomagneticField.munich)
            for event in walker.advance(to: 20) {
                guard case .imu(let t, let accel, let mag, _) = event else { continue }
                let stamp = Timestamp.format(Date(timeIntervalSince1970: 1_795_341_600 + t))
                try await phone.publish(
                    BusMessage(
                        topic: "stepcompass/metrics-walker/imu",
                        text: #"{"timestamp":"\#(stamp)","accel":[\#(accel[0]),\#(accel[1]),\#(accel[2])],"mag":[\#(mag[0]),\#(mag[1]),\#(mag[2])]}"#,
                        qos: .atMostOnce))
            }
            let detected = await collectJSON(steps, timeout: .seconds(10)) { found in
                (found.last?.json["steps"] as? Int ?? 0) >= walker.steps - max(2, walker.steps / 10)
            }
            let counted = detected.last { $0.topic.hasPrefix("stepcompass/metrics-walker/") }?.json["steps"] as? Int ?? 0
            #expect(counted > 10)
            try #require(bridge.runtime).refreshMetrics()
            let metrics = Self.scrape()
            let labels = ["service": service]
            #expect(metrics.value("stepcompass_bridge_batches_total", ["service": service, "source": "sensor-logger-http"]) == 2)
            #expect(metrics.value("stepcompass_bridge_batches_total", ["service": service, "source": "owntracks"]) == 1)
            #expect(metrics.value("stepcompass_bridge_batches_total", ["service": service, "source": "gpsd"]) == 0)
            // The detector's total is what it published for the walker (the Android phone has its pedometer).
            #expect(metrics.value("stepcompass_bridge_detected_steps_total", labels).map { $0 >= Double(counted) } == true)
            #expect(metrics.value("stepcompass_bridge_detector_devices", labels).map { $0 >= 2 } == true)
            #expect(metrics.value("stepcompass_devices_tracked", labels) == 2)  // metrics-phone and alice-metrics
            #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "imu"]).map { $0 > 100 } == true)
            #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "other"]) == 1)  // owntracks/…
            #expect(Self.pushes(metrics, status: "200") >= Self.pushes(before, status: "200") + 2)
            #expect(Self.pushes(metrics, status: "400") >= Self.pushes(before, status: "400") + 1)
            let text = ServiceMetrics.text()
            #expect(!text.contains("metrics-phone") && !text.contains("metrics-walker"), "a device id became a label")
        }
    }
}
