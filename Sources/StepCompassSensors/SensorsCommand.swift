import ArgumentParser
import ServiceRuntime

/// `stepcompass-sensors`: the sensor publisher (steps, IMU, location; a simulated walker by default).
@main
struct SensorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-sensors",
        abstract: "StepCompass the sensor publisher (steps, IMU, location; a simulated walker by default).",
        discussion: """
            Every option can also be set with the environment variable of the same name (--mqtt-host is \
            MQTT_HOST) or in a JSON file (--config, default Config/sensors.json). Topics and payloads follow \
            the StepCompass bus contract (Docs/asyncapi.yaml). Stop with SIGTERM or Ctrl-C: the service \
            publishes its offline status and disconnects cleanly.
            """)

    @OptionGroup var runtime: RuntimeOptions

    func run() async throws {
        let runner = try await ServiceRunner.prepare(service: "sensors", options: runtime)
        try await runner.run { context in
            try await context.ready()
            await context.waitForShutdown()
        }
    }
}
