import ArgumentParser
import CompassService
import Configuration
import ServiceRuntime

/// `stepcompass-compass`: the compass and calibration service (tilt-compensated true-north heading).
@main
struct CompassCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-compass",
        abstract: "StepCompass the compass and calibration service (tilt-compensated true-north heading).",
        discussion: """
            Every option can also be set with the environment variable of the same name (--mqtt-host is \
            MQTT_HOST, --max-rate is MAX_RATE) or in a JSON file (--config, default Config/compass.json). \
            Topics and payloads follow the StepCompass bus contract (Docs/asyncapi.yaml). Stop with SIGTERM \
            or Ctrl-C: the service publishes its offline status and disconnects cleanly.
            """)

    @OptionGroup var runtime: RuntimeOptions

    @OptionGroup var deviceLimit: DeviceLimitOptions

    @Option(help: "Heading smoothing time constant in seconds of sample time (env SMOOTHING, default \(CompassConfiguration.defaults.smoothing)).")
    var smoothing: Double?

    @Option(
        name: .customLong("max-rate"),
        help: "Most heading messages per second of sample time per device (env MAX_RATE, default \(CompassConfiguration.defaults.maxRate)).")
    var maxRate: Double?

    @Option(
        name: .customLong("dead-band"),
        help: "Heading change in degrees within which the heading stands (env DEAD_BAND, default \(CompassConfiguration.defaults.deadBand)).")
    var deadBand: Double?

    @Option(
        name: .customLong("stale-after"),
        help: "Seconds without an IMU sample before a device is stale (env STALE_AFTER, default \(CompassConfiguration.defaults.staleAfter)).")
    var staleAfter: Double?

    func run() async throws {
        var values = CommandLineValues()
        for (key, value) in [("smoothing", smoothing), ("max.rate", maxRate), ("dead.band", deadBand), ("stale.after", staleAfter)] {
            values.set(key, value)
        }
        deviceLimit.set(into: &values)
        let runner = try await ServiceRunner.prepare(service: "compass", options: runtime, commandLine: values.values)
        try await runner.run { config, logger, bus in
            try buildCompass(config: config, logger: logger, bus: bus)
        }
    }
}
