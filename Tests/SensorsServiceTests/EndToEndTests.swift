import Bus
import BusTesting
import Foundation
import Logging
import SensorsService
import ServiceRuntime
import Testing
import WalkerSimulation

/// Sensors → position on a real broker, with the true heading standing in for the compass.
@Suite("Sensors to position on a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct EndToEndTests {
    /// The `stepcompass-position` executable built next to this test bundle, if it is there.
    static var positionExecutable: URL? {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("stepcompass-position")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    @Test(
        "dead reckoning with true headings stays within a few percent of the distance walked",
        .enabled(if: EndToEndTests.positionExecutable != nil))
    func deadReckoningError() async throws {
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let probe = try await harness.makeClient(id: "e2e-probe", cleanStart: true, will: nil)
            let status = try await probe.subscribe(to: TopicFilter("stepcompass/services/position/status"))
            let truthFeed = try await probe.subscribe(to: TopicFilter("stepcompass/walker-1/simulation/truth"))
            let positions = try await probe.subscribe(to: TopicFilter("stepcompass/walker-1/position"))

            let process = Process()
            let executable = try #require(Self.positionExecutable as URL?)
            process.executableURL = executable
            process.arguments = [
                "--mqtt-host", "127.0.0.1", "--mqtt-port", "\(broker.port)",
                "--mqtt-client-id", "e2e-position-\(UUID().uuidString.prefix(8))", "--settle-ms", "200",
                "--log-level", "warning",
            ]
            let (ended, endedContinuation) = AsyncStream.makeStream(of: Int32.self)
            process.terminationHandler = { endedContinuation.yield($0.terminationStatus) }
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            var online = false
            for _ in 0..<60 where !online {
                if let message = await status.next(timeout: .seconds(1)) { online = message.text.contains("online") }
            }
            #expect(online)

            // The compass stand-in: republish each true heading as a heading message.
            let bridge = Task {
                var history: [(steps: Int, x: Double, y: Double)] = []
                for await message in truthFeed {
                    guard let truth = try? JSONSerialization.jsonObject(with: message.payload) as? [String: Any],
                        let heading = truth["heading"] as? Double
                    else { continue }
                    history.append((truth["steps"] as? Int ?? 0, truth["x"] as? Double ?? 0, truth["y"] as? Double ?? 0))
                    try? await probe.publish(
                        BusMessage(
                            topic: "stepcompass/walker-1/heading", text: #"{"heading": \#(heading), "status": "ok"}"#,
                            qos: .atMostOnce, retain: true))
                    if Task.isCancelled { break }
                }
                return history
            }

            var walker = WalkerConfiguration()
            walker.seed = 3
            walker.imuRate = 5
            // The test relays each true heading itself: at 60× real time and 20 truths a second (1,200 relays a
            // second) a loaded machine fell behind and the position service walked on stale headings (a 23 % error,
            // once). 20× and 10 a second leave the relay ample slack.
            walker.truthRate = 10
            let sensorsBus = try await harness.makeClient(id: "e2e-sensors", cleanStart: true, will: nil)
            let context = BusServiceContext(service: "sensors", bus: sensorsBus, logger: Logger(label: "e2e.sensors"))
            // About 300 m at 1.35 m/s.
            try await SensorsService(
                configuration: SensorsConfiguration(walker: walker, speed: 20, duration: 225), context: context,
                clock: ContinuousClock(), fieldSource: ConstantGeomagneticField.munich
            ).run()
            try await sensorsBus.flush()
            let received = await positions.collect(10_000, timeout: .seconds(1))
            bridge.cancel()
            let history = await bridge.value
            process.terminate()
            var endings = ended.makeAsyncIterator()
            let exitStatus = await endings.next()
            #expect(exitStatus == 0)

            let decoded = try received.map { try JSONDecoder().decode(PositionMessage.self, from: $0.payload) }
            let last = try #require(decoded.last)
            let lastBatch = decoded.last { $0.steps != nil && $0.steps == $0.updates.map { $0 * 10 } } ?? last
            let batches = try #require(lastBatch.updates)
            let truth = try #require(history.first { $0.steps >= batches * 10 })
            let error = ((lastBatch.x - truth.x) * (lastBatch.x - truth.x) + (lastBatch.y - truth.y) * (lastBatch.y - truth.y)).squareRoot()
            let walked = Double(batches * 10) * 0.75
            let percent = 100 * error / walked
            let steps = try #require(last.steps)
            print("end to end: \(steps) steps, \(walked) m in batches, dead-reckoning error \(error) m = \(percent) % of distance")
            #expect(steps > 350)
            #expect(percent < 10)
            await sensorsBus.close()
            await probe.close()
        }
    }
}
