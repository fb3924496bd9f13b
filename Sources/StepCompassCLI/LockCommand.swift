import ArgumentParser
import ServiceRuntime
import StepCompassClient

/// `stepcompass lock`.
struct LockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock a bearing: the compass service reports how far the heading strays from it.",
        discussion: """
            Publishes {"action": "lock", ...} on {device}/cmd/bearing-lock and waits for the retained \
            bearing-lock to confirm. Without a bearing, the device's current heading is locked.

            Examples:
              stepcompass lock 45
              stepcompass lock 270 --threshold 15 --device walker-1
              stepcompass lock
            """)

    @OptionGroup var client: ClientOptions
    @OptionGroup var target: DeviceOptions

    @Argument(help: "The bearing in degrees, 0 up to 360 (default: the current heading).")
    var bearing: Double?

    @Option(name: .customLong("threshold"), help: "Degrees off the bearing that count as off course (default: the service's, 10).")
    var threshold: Double?

    var command: DeviceCommand { .lock(bearing: bearing, threshold: threshold) }

    func validate() throws { try DeviceCommandRunner.validate(command) }

    func run() async throws { try await DeviceCommandRunner.run(command, client: client, device: target) }
}
