import ArgumentParser
import ServiceRuntime

/// `stepcompass-markers`: the marker geodata service (GeoJSON markers and their nearest neighbours).
@main
struct MarkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-markers",
        abstract: "StepCompass the marker geodata service (GeoJSON markers and their nearest neighbours).",
        discussion: """
            Every option can also be set with the environment variable of the same name (--mqtt-host is \
            MQTT_HOST) or in a JSON file (--config, default Config/markers.json). Topics and payloads follow \
            the StepCompass bus contract (Docs/asyncapi.yaml). Stop with SIGTERM or Ctrl-C: the service \
            publishes its offline status and disconnects cleanly.
            """)

    @OptionGroup var runtime: RuntimeOptions

    func run() async throws {
        let runner = try await ServiceRunner.prepare(service: "markers", options: runtime)
        try await runner.run { context in
            try await context.ready()
            await context.waitForShutdown()
        }
    }
}
