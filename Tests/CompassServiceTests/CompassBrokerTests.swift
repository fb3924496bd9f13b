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

@Suite("Compass on a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct CompassBrokerTests {
    @Test("IMU samples published to mosquitto give a retained heading")
    func retainedHeadingOverMosquitto() async throws {
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let serviceBus = try await harness.makeClient(id: "compass-broker-test", cleanStart: true, will: nil)
            let device = try await harness.makeClient(id: "device-broker-test", cleanStart: true, will: nil)
            let ready = AsyncStream<Void>.makeStream()
            let context = BusServiceContext(
                service: "compass", bus: serviceBus,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            ) { ready.continuation.yield() }
            let service = try CompassService(
                configuration: CompassConfiguration(smoothing: 0.1, maxRate: 50, deadBand: 0.5, staleAfter: 30),
                context: context, model: CompassTestHarness.model)
            let task = Task { try await service.run() }
            defer { task.cancel() }
            var iterator = ready.stream.makeAsyncIterator()
            await iterator.next()
            let topics = Topics()
            let reading = DeviceMotion(field: CompassTestHarness.boulderField()).reading(heading: 75, pitch: 10, roll: -5)
            var heading: HeadingMessage?
            let deadline = ContinuousClock.now + .seconds(10)
            var index = 0
            try await device.publish(
                BusMessage(
                    topic: topics.device("real", .location), text: #"{"latitude":40.015,"longitude":-105.27}"#,
                    qos: .atLeastOnce))
            while heading == nil, ContinuousClock.now < deadline {
                for _ in 0..<10 {
                    let date = CompassTestHarness.start.addingTimeInterval(Double(index) * 0.02)
                    index += 1
                    try await device.publish(
                        BusMessage(
                            topic: topics.device("real", .imu),
                            text: DeviceMotion.payload(timestamp: date, accel: reading.accel, mag: reading.mag)))
                }
                try await device.flush()
                try await Task.sleep(for: .milliseconds(100))
                // A fresh subscriber sees the retained heading.
                let reader = try await harness.makeClient(id: "reader-\(index)", cleanStart: true, will: nil)
                let subscription = try await reader.subscribe(
                    to: try TopicFilter(topics.device("real", .heading)), qos: .atMostOnce)
                if let message = await subscription.next(timeout: .seconds(1)) {
                    #expect(message.retain)
                    heading = try JSONDecoder().decode(HeadingMessage.self, from: message.payload)
                }
                await reader.close()
            }
            let result = try #require(heading)
            #expect(result.headingStatus == .ok)
            #expect(result.northReference == .true)
            #expect(abs(Angle.difference(from: 75, to: result.heading ?? .nan)) < 0.5)
            task.cancel()
            _ = try? await task.value
            await device.close()
            await serviceBus.close()
        }
    }
}
