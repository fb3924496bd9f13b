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

    @OptionGroup var runtime: RuntimeOptions

    @Option(name: .customLong("steps-per-update"), help: "Steps per position update (default 10).")
    var stepsPerUpdate: Int?

    @Option(name: .customLong("step-length"), help: "Metres per step (default 0.75).")
    var stepLength: Double?

    @Option(name: .customLong("settle-ms"), help: "Longest wait in milliseconds for the retained positions after subscribing (default 5000; it normally ends in milliseconds, when the sync marker comes back).")
    var settleMilliseconds: Int?

    func run() async throws {
        var values = CommandLineValues()
        values.set("steps.per.update", stepsPerUpdate)
        values.set("step.length", stepLength)
        values.set("settle.ms", settleMilliseconds)
        let runner = try await ServiceRunner.prepare(service: "position", options: runtime, commandLine: values.values)
        let settings = PositionConfiguration(
            stepsPerUpdate: runner.config.int(forKey: "steps.per.update", default: 10),
            stepLength: runner.config.double(forKey: "step.length", default: 0.75),
            settleWindow: .milliseconds(runner.config.int(forKey: "settle.ms", default: 5_000)))
        try await runner.run { context in
            let service = try PositionService(configuration: settings, context: context)
            try await service.run()
        }
    }
}
