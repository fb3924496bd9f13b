import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import ServiceRuntime
import StepCompassTesting
import Testing

@Suite("Compass metrics")
struct CompassMetricsTests {
    @Test("headings published and held back by the rate limit, IMU handling time, devices tracked")
    func headingsAndHandling() async throws {
        ServiceMetrics.bootstrap()
        let service = "compass-metrics-test"
        let harness = CompassTestHarness(service: service)
        // 5 headings a second of sample time: 1 s of samples at 50 Hz, turning, has far more changes than that.
        let configuration = CompassConfiguration(smoothing: 0, maxRate: 5, deadBand: 0, staleAfter: 30)
        try await harness.withService(configuration) { harness in
            try await harness.locate("metrics-1")
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            var lastHeading = 0.0
            for index in 0..<50 {
                lastHeading = 10 + Double(index) * 0.6
                let reading = motion.reading(heading: lastHeading, pitch: 0, roll: 0)
                try await harness.sendSample(
                    "metrics-1", at: CompassTestHarness.start.addingTimeInterval(Double(index) * 0.02),
                    accel: reading.accel, mag: reading.mag)
            }
            let final = lastHeading
            try await harness.waitForHeading("metrics-1", timeout: 60) { abs(Angle.difference(from: final, to: $0.heading ?? .nan)) < 0.05 }
            try await harness.locate("metrics-2")
            try await harness.drain()
        }
        let metrics = PrometheusText(ServiceMetrics.text())
        let labels = ["service": service]
        let published = metrics.value("stepcompass_compass_headings_published_total", labels) ?? 0
        let held = metrics.value("stepcompass_compass_headings_held_total", labels) ?? 0
        // Windows at 0, 0.2, ..., 0.8 s (a status change may add one), and a change held in each but the last
        // samples' window, published when it ended.
        #expect(published >= 5 && published <= 8, "published \(published)")
        #expect(held >= 4 && held <= 6, "held \(held)")
        #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "imu"]) == 51)  // the drain marker too
        #expect(metrics.value("stepcompass_message_handling_seconds_count", ["service": service, "kind": "location"]) == 2)
        #expect(metrics.value("stepcompass_devices_tracked", labels) == 2)
    }
}
