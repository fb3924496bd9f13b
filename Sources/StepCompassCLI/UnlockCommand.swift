import ArgumentParser
import ServiceRuntime
import StepCompassClient

/// `stepcompass unlock`.
struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Release the bearing lock.",
        discussion: """
            Publishes {"action": "unlock"} on {device}/cmd/bearing-lock and waits for the retained \
            bearing-lock to confirm.

            Example:
              stepcompass unlock --device walker-1
            """)

    @OptionGroup var client: ClientOptions
    @OptionGroup var target: DeviceOptions

    func run() async throws { try await DeviceCommandRunner.run(.unlock, client: client, device: target) }
}
