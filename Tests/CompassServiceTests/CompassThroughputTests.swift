import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import GeoMagnetism
import InMemoryBus
import ServiceRuntime
import Testing

@Suite("Compass throughput")
struct CompassThroughputTests {
    /// Measures the per-message path (decode, filters, calibration, rate limit, publish) over the
    /// in-memory bus. `COMPASS_THROUGHPUT_DEVICES` and `COMPASS_THROUGHPUT_SAMPLES` scale it up
    /// (1000 × 250 for the 50k samples/s goal); the default keeps the test target fast.
    @Test("many devices' samples are all handled, and the rate is reported")
    func throughput() async throws {
        let environment = ProcessInfo.processInfo.environment
        let devices = Int(environment["COMPASS_THROUGHPUT_DEVICES"] ?? "") ?? 100
        let samples = Int(environment["COMPASS_THROUGHPUT_SAMPLES"] ?? "") ?? 20
        let harness = CompassTestHarness()
        try await harness.withService(CompassConfiguration()) { harness in
            let errors = try await harness.device.subscribe(to: "stepcompass/errors/compass", qos: .atMostOnce)
            let motion = DeviceMotion(field: CompassTestHarness.boulderField())
            var payloads: [BusMessage] = []
            payloads.reserveCapacity(devices * samples)
            for step in 0..<samples {
                let reading = motion.reading(heading: Double(step) * 3, pitch: 10, roll: 5)
                let text = DeviceMotion.payload(
                    timestamp: CompassTestHarness.start.addingTimeInterval(Double(step) * 0.02), accel: reading.accel,
                    mag: reading.mag)
                for device in 0..<devices {
                    payloads.append(BusMessage(topic: harness.topics.device("dev\(device)", .imu), text: text))
                }
            }
            let began = ContinuousClock.now
            for message in payloads { try await harness.device.publish(message) }
            // Messages are handled in order: the report of a final bad one means all are done.
            try await harness.send("marker", .imu, "done")
            let report = await errors.next(timeout: .seconds(120))
            let elapsed = ContinuousClock.now - began
            #expect(report != nil)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            print("compass throughput: \(devices * samples) samples in \(seconds) s = \(Int(Double(devices * samples) / seconds)) samples/s")
            for device in [0, devices / 2, devices - 1] {
                #expect(harness.heading("dev\(device)")?.headingStatus == .ok)
            }
        }
    }
}
