import ArgumentParser
import ServiceRuntime

/// `stepcompass-compass`: the compass and calibration service (tilt-compensated true-north heading).
@main
struct CompassCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-compass",
        abstract: "StepCompass the compass and calibration service (tilt-compensated true-north heading).",
        discussion: """
            Every option can also be set with the environment variable of the same name (--mqtt-host is \
            MQTT_HOST) or in a JSON file (--config, default Config/compass.json). Topics and payloads follow \
            the StepCompass bus contract (Docs/asyncapi.yaml). Stop with SIGTERM or Ctrl-C: the service \
            publishes its offline status and disconnects cleanly.
            """)

    @OptionGroup var runtime: RuntimeOptions

    func run() async throws {
        let runner = try await ServiceRunner.prepare(service: "compass", options: runtime)
        try await runner.run { context in
            try await context.ready()
            await context.waitForShutdown()
        }
    }
}
