import ArgumentParser
import Configuration
import PositionService
import ServiceRuntime

/// `stepcompass-position`: the position calculator (pedestrian dead reckoning).
@main
struct PositionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-position",
        abstract: "StepCompass the position calculator (pedestrian dead reckoning).",
        discussion: """
            Every option can also be set with the environment variable of the same name (--mqtt-host is \
            MQTT_HOST, --steps-per-update is STEPS_PER_UPDATE) or in a JSON file (--config, default \
            Config/position.json). Topics and payloads follow the StepCompass bus contract \
            (Docs/asyncapi.yaml). Stop with SIGTERM or Ctrl-C: the service publishes its offline status and \
            disconnects cleanly, keeping its session so that step messages sent meanwhile are counted later.
            """)

    private static let defaults = PositionConfiguration.defaults

    @OptionGroup var runtime: RuntimeOptions

    @Option(name: .customLong("steps-per-update"), help: "Steps per position update (default \(defaults.stepsPerUpdate)).")
    var stepsPerUpdate: Int?

    @Option(name: .customLong("step-length"), help: "Metres per step (default \(defaults.stepLength)).")
    var stepLength: Double?

    @Option(name: .customLong("settle-ms"), help: "Longest wait in milliseconds for the retained positions after subscribing (default \(defaults.settleWindow.components.seconds * 1000); it normally ends in milliseconds, when the sync marker comes back).")
    var settleMilliseconds: Int?

    func run() async throws {
        var values = CommandLineValues()
        values.set("steps.per.update", stepsPerUpdate)
        values.set("step.length", stepLength)
        values.set("settle.ms", settleMilliseconds)
        let runner = try await ServiceRunner.prepare(service: "position", options: runtime, commandLine: values.values)
        try await runner.run { config, logger, bus in
            try buildPosition(config: config, logger: logger, bus: bus)
        }
    }
}
