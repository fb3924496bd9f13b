import ArgumentParser
import Configuration
import Foundation
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

    @OptionGroup var deviceLimit: DeviceLimitOptions

    @Option(name: .customLong("steps-per-update"), help: "Steps per position update (default \(defaults.stepsPerUpdate)).")
    var stepsPerUpdate: Int?

    @Option(
        name: .customLong("step-length"),
        help: ArgumentHelp(
            "Metres per step (default \(defaults.stepLength)), or 'estimated': advance by the distance the steps messages report (a bridge's step-length model), \(defaults.stepLength) m a step for messages without one.",
            valueName: "metres|estimated"))
    var stepLength: StepLengthOption?

    @Option(
        name: .customLong("heading-source"),
        help: ArgumentHelp(
            "The heading a batch uses: 'device' (the heading message's heading, where the top of the phone points; the default) or 'walking' (its walkingDirection, where its owner walks, when it has one; else the heading).",
            valueName: "device|walking"))
    var headingSource: HeadingSourceOption?

    @Option(
        name: .customLong("settle-ms"),
        help:
            "Longest wait in milliseconds for the retained positions after subscribing (default \(defaults.settleWindow.components.seconds * 1000); it normally ends in milliseconds, when the sync marker comes back)."
    )
    var settleMilliseconds: Int?

    func run() async throws {
        var values = CommandLineValues()
        values.set("steps.per.update", stepsPerUpdate)
        if case .metres(let metres) = stepLength { values.set("step.length", metres) }
        values.set("heading.source", headingSource?.rawValue)
        values.set("settle.ms", settleMilliseconds)
        deviceLimit.set(into: &values)
        let runner = try await ServiceRunner.prepare(service: "position", options: runtime, commandLine: values.values)
        let estimated = stepLength == .estimated
        try await runner.run { config, logger, bus in
            // `estimated` is not put in the configuration as `step.length`: a file's number would then be shadowed
            // by a word that the configuration's number lookup reports as malformed.
            var configuration = PositionConfiguration(config: config)
            if estimated { configuration.estimatedStepLength = true }
            return try buildPosition(config: config, logger: logger, bus: bus, configuration: configuration)
        }
    }
}

/// `--step-length`: metres, or the word `estimated`.
enum StepLengthOption: ExpressibleByArgument, Equatable {
    case metres(Double)
    case estimated

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "estimated" {
            self = .estimated
        } else if let value = Double(text) {
            self = .metres(value)
        } else {
            return nil
        }
    }
}

/// `--heading-source`: `device` or `walking`.
enum HeadingSourceOption: String, ExpressibleByArgument, CaseIterable {
    case device, walking
}
