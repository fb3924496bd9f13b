import Bus
import BusTesting
import Foundation
import Logging
import MosquittoBus
import StepCompassContract
import Testing

/// sensors → compass → position, three real executables on a real broker: how far does the dead-reckoned
/// position end from the simulator's truth after a 300 m walk?
@Suite("Step compass pipeline end to end", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct PipelineEndToEndTests {
    struct Position: Decodable {
        let x: Double
        let y: Double
        let steps: Int
        let updates: Int
    }

    @Test("a 300 m walk ends within 5 % of the distance walked")
    func deadReckoning() async throws {
        try await withBroker(configuration: "max_queued_messages 1000000") { broker in
            let prefix = "e2e\(UUID().uuidString.prefix(6))"
            let probe = try await ServiceLifecycleTests.watcher(broker.port, "probe-\(prefix)")
            let statuses = try await probe.subscribe(to: try TopicFilter("\(prefix)/services/+/status"))
            let truthFeed = try await probe.subscribe(to: try TopicFilter("\(prefix)/walker-1/simulation/truth"))
            let positionFeed = try await probe.subscribe(to: try TopicFilter("\(prefix)/walker-1/position"))
            let stepsFeed = try await probe.subscribe(to: try TopicFilter("\(prefix)/walker-1/steps"))

            let executables = Dictionary(uniqueKeysWithValues: ServiceExecutable.services.map { ($0.service, $0) })
            let compass = try await executables["compass"]!.start(port: broker.port, prefix: prefix)
            let position = try await executables["position"]!.start(port: broker.port, prefix: prefix)
            var online: Set<String> = []
            while online.count < 2, let message = await statuses.next(timeout: .seconds(20)) {
                if message.text.contains("\"online\"") { online.insert(message.topic) }
            }
            #expect(online.count == 2, "compass and position come online")

            // About 300 m at ~1.35 m/s is 225 s of walking; at 15× it takes 15 s.
            let sensors = try await executables["sensors"]!.start(
                port: broker.port, prefix: prefix, arguments: ["--seed", "3", "--speed", "15", "--duration", "225"])
            #expect(await sensors.waitForExit(timeout: .seconds(120)) == 0, "the walk ends by itself: \(sensors.output)")

            let truths = await truthFeed.collect(1_000_000, timeout: .milliseconds(500))
                .compactMap { try? JSONDecoder().decode(SimulationTruthMessage.self, from: $0.payload) }
            // The walker's last step count: the position service has caught up once it published that count's batches.
            let lastSteps =
                await stepsFeed.collect(1_000_000, timeout: .milliseconds(500))
                .compactMap { try? JSONDecoder().decode(StepsMessage.self, from: $0.payload).steps }.last ?? 0
            let finalUpdates = Int(lastSteps) / 10
            var positions: [Position] = []
            let caughtUp = ContinuousClock.now + .seconds(60)
            while (positions.last?.updates ?? -1) < finalUpdates, ContinuousClock.now < caughtUp,
                let message = await positionFeed.next(timeout: .seconds(60))
            {
                if let position = try? JSONDecoder().decode(Position.self, from: message.payload) { positions.append(position) }
            }
            #expect((positions.last?.updates ?? -1) >= finalUpdates, "the position service published the walk's last batch")
            // Compare at the last completed batch: its steps are a multiple of 10.
            let batch = try #require(positions.last { $0.updates > 0 && $0.steps >= $0.updates * 10 })
            let batchSteps = batch.updates * 10
            let truth = try #require(truths.first { $0.steps >= batchSteps })
            let error = ((batch.x - truth.x) * (batch.x - truth.x) + (batch.y - truth.y) * (batch.y - truth.y)).squareRoot()
            let walked = Double(batchSteps) * 0.75
            let percent = 100 * error / walked
            print(
                "pipeline end to end: \(batchSteps) steps, \(walked) m walked in batches, position error \(String(format: "%.2f", error)) m = \(String(format: "%.2f", percent)) % of the distance"
            )
            #expect(walked >= 280)
            #expect(percent < 5)

            compass.signal(SIGTERM)
            position.signal(SIGTERM)
            #expect(await compass.waitForExit(timeout: .seconds(15)) == 0)
            #expect(await position.waitForExit(timeout: .seconds(15)) == 0)
            await probe.disconnect()
        }
    }
}
