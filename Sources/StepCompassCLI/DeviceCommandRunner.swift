import ArgumentParser
import ServiceRuntime
import StepCompassClient

/// Sends one ``DeviceCommand`` to the chosen device and prints what was sent and what came of it.
enum DeviceCommandRunner {
    static func run(_ command: DeviceCommand, client: ClientOptions, device options: DeviceOptions) async throws {
        try await run(command, client: client, device: options.device, wait: options.wait)
    }

    /// As ``run(_:client:device:)`` for a device given otherwise (an argument): nil for the only device there is.
    static func run(_ command: DeviceCommand, client: ClientOptions, device requested: String?, wait seconds: Double) async throws {
        let wait = Duration.seconds(checked: seconds)
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
