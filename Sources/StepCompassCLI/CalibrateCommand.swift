import ArgumentParser
import ServiceRuntime
import StepCompassClient

/// `stepcompass calibrate`.
struct CalibrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Start a compass calibration (then move the device in a figure-8), or reset it.",
        discussion: """
            Publishes {"action": "start"} (or "reset") on {device}/cmd/calibrate and shows the \
            calibration state the compass service reports.

            Examples:
              stepcompass calibrate
              stepcompass calibrate --reset --device walker-1
            """)

    @OptionGroup var client: ClientOptions
    @OptionGroup var target: DeviceOptions

    @Flag(name: .customLong("reset"), help: "Forget the calibration instead of starting one.")
    var reset = false

    func run() async throws { try await DeviceCommandRunner.run(.calibrate(reset: reset), client: client, device: target) }
}
