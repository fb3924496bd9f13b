import Bus
import BusTesting
import CompassKit
import CompassService
import Foundation
import Logging
import ServiceRuntime
import Testing

/// The simulated walker's own figure-8 (the real `stepcompass-sensors` executable, 10 µT hard iron and 3 % soft
/// iron from its seed, magnetometer noise, step impacts and hand sway) calibrates the compass service, whose heading
/// then follows the walker's true heading.
///
/// This target does not depend on WalkerSimulation, so the walk comes from the built sensors executable on a real
/// broker; the compass runs in-process on a MosquittoBus client.
@Suite(
    "Compass calibrated by the simulated walker",
    .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests),
    .enabled(if: SensorsExecutable.shouldRun)
)
struct CompassWalkerCalibrationTests {
    @Test("the walker's figure-8 reaches calibrated, then the heading is within a few degrees of the truth")
    func walkerFigureEightCalibrates() async throws {
        try await withBroker { broker in
            let harness = MosquittoHarness(port: broker.port)
            let serviceBus = try await harness.makeClient(id: "compass-walker-test", cleanStart: true, will: nil)
            let probe = try await harness.makeClient(id: "probe-walker-test", cleanStart: true, will: nil)
            let topics = Topics()
            let headings = try await probe.subscribe(
                to: try TopicFilter(topics.device("walker-1", .heading)), qos: .atMostOnce)
            let calibrations = try await probe.subscribe(
                to: try TopicFilter(topics.device("walker-1", .calibration)), qos: .atLeastOnce)
            let truths = try await probe.subscribe(
                to: try TopicFilter(topics.device("walker-1", .simulationTruth)), qos: .atMostOnce)

            let ready = AsyncStream<Void>.makeStream()
            let context = BusServiceContext(
                service: "compass", bus: serviceBus,
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            ) { ready.continuation.yield() }
            let service = try CompassService(
                configuration: CompassConfiguration(), context: context, model: CompassTestHarness.model)
            let task = Task { try await service.run() }
            defer { task.cancel() }
            var iterator = ready.stream.makeAsyncIterator()
            await iterator.next()

            // 40 s of walking (the park loop's first leg runs due north for about 90 s) at 10× real time.
            let sensors = try await ChildProcess(
                executable: SensorsExecutable.path, arguments: ["--seed", "3", "--speed", "10", "--duration", "40"],
                environment: [
                    "MQTT_HOST": "127.0.0.1", "MQTT_PORT": "\(broker.port)", "MQTT_CLIENT_ID": "sensors-walker-test",
                    "LOG_LEVEL": "warning",
                ])
            #expect(await sensors.waitForExit(timeout: .seconds(60)) == 0, "the walk ends by itself: \(sensors.output)")
            try await Task.sleep(for: .milliseconds(500))  // the last samples through the service

            let decoder = JSONDecoder()
            let headingMessages = await headings.collect(100_000, timeout: .milliseconds(300))
                .compactMap { try? decoder.decode(HeadingMessage.self, from: $0.payload) }
            let calibrationMessages = await calibrations.collect(100_000, timeout: .milliseconds(300))
                .compactMap { try? decoder.decode(CalibrationMessage.self, from: $0.payload) }
            let truthMessages = await truths.collect(100_000, timeout: .milliseconds(300))
                .compactMap { try? decoder.decode(SimulationTruthMessage.self, from: $0.payload) }
            task.cancel()
            _ = try? await task.value

            let walkStart = try #require(truthMessages.first.flatMap { Timestamp.parse($0.timestamp) })
            func seconds(_ message: HeadingMessage) -> Double {
                (message.timestamp.flatMap(Timestamp.parse) ?? .distantPast).timeIntervalSince(walkStart)
            }
            // Calibrated, with the ellipsoid fit's hard iron, well within the walk (the figure-8 lasts 5 s).
            let calibrated = try #require(calibrationMessages.first { $0.calibrationState == .calibrated }, "never calibrated")
            #expect((calibrated.quality ?? 0) >= 0.5)
            #expect((calibrated.coverage ?? 0) >= 0.5)
            let firstCalibrated = try #require(headingMessages.first { $0.calibrationState == .calibrated })
            #expect(seconds(firstCalibrated) < 10, "calibrated after \(seconds(firstCalibrated)) s of walking")
            // By the end the soft iron is fitted too (an early calibrated-grade sphere fit may come first).
            let final = try #require(calibrationMessages.last)
            #expect(final.calibrationState == .calibrated)
            #expect(final.softIronMatrix != .identity, "the soft iron was fitted")

            // After the figure-8 and the smoothing have settled, the walker goes due north (truth heading 0).
            #expect(truthMessages.allSatisfy { abs(Angle.difference(from: 0, to: $0.heading)) < 1e-6 })
            let settled = headingMessages.filter { seconds($0) >= 8 && $0.calibrationState == .calibrated }
            #expect(settled.count >= 50, "\(settled.count) calibrated headings after 8 s")
            let errors = settled.compactMap { $0.trueHeading.map { Angle.difference(from: 0, to: $0) } }
            #expect(errors.count == settled.count, "every heading has a true heading once located")
            let mean = errors.reduce(0, +) / Double(max(1, errors.count))
            let worst = errors.map(abs).max() ?? .infinity
            let worstAt = zip(settled, errors).max { abs($0.1) < abs($1.1) }.map { seconds($0.0) } ?? .nan
            // The gait (step impacts, hand sway) swings the instantaneous heading by a few degrees; its mean is the
            // calibration's error.
            print(
                "walker calibration: calibrated after \(seconds(firstCalibrated)) s, quality \(final.quality ?? 0), coverage "
                    + "\(final.coverage ?? 0); heading error after 8 s: mean \(mean)°, worst \(worst)° (at \(worstAt) s) over \(errors.count) headings"
            )
            #expect(abs(mean) < 1, "mean heading error \(mean)°")
            #expect(worst < 5, "worst heading error \(worst)°")
            await probe.close()
            await serviceBus.close()
        }
    }
}

/// The built `stepcompass-sensors`, next to this test bundle in `.build/<configuration>/`.
enum SensorsExecutable {
    static var path: String {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        while url.path != "/", !url.lastPathComponent.hasSuffix("debug"), !url.lastPathComponent.hasSuffix("release") {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("stepcompass-sensors").path
    }

    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Skipped when the executable was not built (`swift build --target`), except in CI (`CI=true`), where
    /// a missing executable must fail the run rather than hide the test.
    static var shouldRun: Bool { exists || ProcessInfo.processInfo.environment["CI"] == "true" }
}
