import ArgumentParser
import ServiceRuntime
import StepCompassClient

/// `stepcompass watch`: a live view of one device in the terminal.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show a device's steps, heading, position, calibration and bearing lock live, with a text compass.",
        discussion: """
            Shows the first device that publishes, or the one given with --device, in the same words as \
            the dashboard page, plus the markers and services status. On a terminal the screen is \
            redrawn in place (at most 10 times a second); when the output is piped, one line is written \
            per change. Ctrl-C stops.

            Examples:
              stepcompass watch
              stepcompass watch --device walker-1
              stepcompass watch --lines | tee walk.log
            """)

    @OptionGroup var client: ClientOptions

    @Option(name: .customLong("device"), help: "The device to show (default: the first that publishes).")
    var device: String?

    @Flag(name: .customLong("lines"), help: "Write one line per change even on a terminal.")
    var lines = false

    func validate() throws {
        if let device {
            do { try DeviceID.validate(device) } catch { throw ValidationError("--device: \(error.message)") }
        }
    }

    func run() async throws {
        let device = device
        let output: WatchSession.Output =
            lines || !Terminal.isInteractive
            ? .lines
            : .screen(refresh: .milliseconds(100), width: 45, colour: true)
        try await ClientConnection.run(client) { connection in
            let session = WatchSession(bus: connection.bus, topics: connection.topics, device: device)
            try await Terminal.runUntilInterrupted {
                try await session.run(output: output, write: Terminal.write)
            }
        }
    }
}
