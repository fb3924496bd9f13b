import ArgumentParser
import Foundation
import ServiceRuntime
import StepCompassClient

/// `stepcompass forget DEVICE`: remove a walker from Home Assistant and clear its retained messages.
struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget a walker: remove it from Home Assistant and clear its retained messages.",
        discussion: """
            Publishes {} on stepcompass/{device}/cmd/forget, on which the dashboard's Home Assistant \
            discovery (stepcompass-dashboard --home-assistant) removes the walker's Home Assistant device, \
            then clears each of the device's retained messages (permissions, heading, calibration, \
            bearing-lock, position, activity, journal: an empty retained message, QoS 1, on each one it \
            has) and prints what it cleared. It asks for confirmation first unless --yes is given.

            The services' own state is not reset: the position service keeps the device's position in \
            memory, the activity service and the journal keep their history. A device that sends again \
            comes back: the services publish its retained topics anew.

            Examples:
              stepcompass forget walker-1
              stepcompass forget old-phone --yes
            """)

    @OptionGroup var client: ClientOptions

    @Argument(help: ArgumentHelp("The device to forget.", valueName: "device"))
    var device: String

    @Flag(name: [.customShort("y"), .customLong("yes")], help: "Do not ask for confirmation.")
    var yes = false

    @Option(name: .customLong("wait"), help: "Seconds to wait at most for the retained messages (default 2).")
    var wait: Double = 2

    func validate() throws {
        do { try DeviceID.validate(device) } catch { throw ValidationError("DEVICE: \(error.message)") }
        guard wait.isFinite, wait > 0, wait <= 300 else { throw ValidationError("--wait must be more than 0 and at most 300 seconds") }
    }

    func run() async throws {
        let (device, yes, window) = (device, yes, Duration.seconds(checked: wait))
        try await ClientConnection.run(client) { connection in
            let forgetter = DeviceForgetter(bus: connection.bus, topics: connection.topics, window: window)
            let retained = try await forgetter.retainedTopics(of: device)
            if !yes {
                let what =
                    retained.isEmpty
                    ? "it has no retained messages"
                    : "clear its retained \(retained.map(\.rawValue).joined(separator: ", "))"
                Terminal.write("Forget \(device) (remove it from Home Assistant; \(what))? [y/N] ")
                let answer = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased()
                guard answer == "y" || answer == "yes" else {
                    if answer == nil { Terminal.print("") }
                    Terminal.print("not forgotten (answer y, or pass --yes)")
                    throw ExitCode.failure
                }
            }
            for line in try await forgetter.forget(device, clearing: retained) { Terminal.print(line) }
        }
    }
}
