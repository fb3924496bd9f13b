import ArgumentParser
import ServiceRuntime
import StepCompassClient

/// `stepcompass reset-position`.
struct ResetPositionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-position",
        abstract: "Put the device back at (0, 0) with steps and distance 0.",
        discussion: """
            Publishes {} on {device}/cmd/reset-position and waits for the position service to \
            publish the reset position.

            Example:
              stepcompass reset-position --device walker-1
            """)

    @OptionGroup var client: ClientOptions
    @OptionGroup var target: DeviceOptions

    func run() async throws { try await DeviceCommandRunner.run(.resetPosition, client: client, device: target) }
}
