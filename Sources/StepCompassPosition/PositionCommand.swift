import ArgumentParser
import ServiceRuntime

/// `stepcompass-position`: the position calculator (pedestrian dead reckoning).
@main
struct PositionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-position",
        abstract: "StepCompass the position calculator (pedestrian dead reckoning).",
        discussion: """
            Every option can also be set with the environment variable of the same name (--mqtt-host is \
            MQTT_HOST) or in a JSON file (--config, default Config/position.json). Topics and payloads follow \
            the StepCompass bus contract (Docs/asyncapi.yaml). Stop with SIGTERM or Ctrl-C: the service \
            publishes its offline status and disconnects cleanly.
            """)

    @OptionGroup var runtime: RuntimeOptions

    func run() async throws {
        let runner = try await ServiceRunner.prepare(service: "position", options: runtime)
        try await runner.run { context in
            try await context.ready()
            await context.waitForShutdown()
        }
    }
}
