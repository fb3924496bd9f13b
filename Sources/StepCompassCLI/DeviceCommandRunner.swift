import ServiceRuntime
import ArgumentParser
import StepCompassClient

/// Sends one ``DeviceCommand`` to the chosen device and prints what was sent and what came of it.
enum DeviceCommandRunner {
    static func run(_ command: DeviceCommand, client: ClientOptions, device options: DeviceOptions) async throws {
        let (requested, wait) = (options.device, Duration.seconds(checked: options.wait))
        try await ClientConnection.run(client) { connection in
            let device = try await DeviceDiscovery(bus: connection.bus, topics: connection.topics).resolve(requested)
            let outcome = try await CommandSender(bus: connection.bus, topics: connection.topics, confirmationWindow: wait)
                .send(command, to: device)
            for line in outcome.lines { Terminal.print(line) }
        }
    }

    /// Checks a command's arguments as an ArgumentParser validation (usage is printed with the error).
    static func validate(_ command: DeviceCommand) throws {
        do { try command.validate() } catch { throw ValidationError(error.message) }
    }
}
