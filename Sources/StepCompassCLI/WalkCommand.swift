import ArgumentParser
import ServiceRuntime
import StepCompassClient

/// `start` or `stop` on the command line.
enum WalkAction: String, ExpressibleByArgument, CaseIterable {
    case start, stop
}

/// `stepcompass walk start|stop`.
struct WalkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "walk",
        abstract: "Start or stop a walk of the journal: its route and a photo every 100 m are recorded.",
        discussion: """
            Publishes {"action": "start", "name"?} or {"action": "stop"} on {device}/cmd/walk and waits \
            for the retained journal message of the journal (stepcompass-journal) to show the new walk, \
            or no walk. A walk is recorded only while the device's location permission is granted; the \
            confirmation says when it is not. Starting while a walk is on, or stopping while none is, \
            changes nothing, and says so.

            Examples:
              stepcompass walk start --name "Morning loop"
              stepcompass walk stop phone-1
              stepcompass walks
            """)

    @OptionGroup var client: ClientOptions
    @OptionGroup var target: DeviceOptions

    @Argument(help: "What to do with the walk.")
    var action: WalkAction

    @Argument(help: ArgumentHelp("The device (default: the only device that has published).", valueName: "device"))
    var deviceArgument: String?

    @Option(name: .customLong("name"), help: "The walk's name, at most 120 characters (with start).")
    var name: String?

    var command: DeviceCommand { .walk(start: action == .start, name: name) }

    func validate() throws {
        _ = try DeviceOptions.device(argument: deviceArgument, option: target.device)
        if let name {
            guard action == .start else { throw ValidationError("--name goes with start, not stop") }
            do { try DeviceCommand.validate(walkName: name) } catch { throw ValidationError(error.message) }
        }
    }

    func run() async throws {
        let device = try DeviceOptions.device(argument: deviceArgument, option: target.device)
        try await DeviceCommandRunner.run(command, client: client, device: device, wait: target.wait)
    }
}
