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

/// `true` or `magnetic` on the command line.
enum NorthArgument: String, ExpressibleByArgument, CaseIterable {
    case `true`, magnetic

    var reference: DeviceCommand.NorthReference { self == .true ? .trueNorth : .magnetic }
}

/// `stepcompass north`.
struct NorthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "north",
        abstract: "Choose whether the heading refers to true or magnetic north.",
        discussion: """
            Publishes {"north": ...} on {device}/cmd/settings. True north needs a location (for the \
            declination); until one is known the heading stays magnetic, and this says so.

            Examples:
              stepcompass north true
              stepcompass north magnetic --device walker-1
            """)

    @OptionGroup var client: ClientOptions
    @OptionGroup var target: DeviceOptions

    @Argument(help: "true or magnetic.")
    var reference: NorthArgument

    func run() async throws { try await DeviceCommandRunner.run(.north(reference.reference), client: client, device: target) }
}

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
