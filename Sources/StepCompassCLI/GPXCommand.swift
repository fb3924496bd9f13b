import ArgumentParser
import Foundation
import ServiceRuntime
import StepCompassClient

/// `stepcompass gpx`: a walk's GPX file, from the journal.
struct GPXCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpx",
        abstract: "Write a walk's route and photo waypoints as a GPX 1.1 file.",
        discussion: """
            Asks the journal (stepcompass-journal) on journal/walks for the walk's GPX and writes it to \
            WALK.gpx, or to the file given with --output (- for standard output). WALK is an id as \
            `stepcompass walks` lists it. An unknown walk, or a journal that does not answer, is an \
            error on standard error with a non-zero exit status, and nothing is written.

            Examples:
              stepcompass gpx 3f2a9c1e-0b7d-4e55-9a64-2d1f0c8b7a10
              stepcompass gpx 3f2a9c1e-0b7d-4e55-9a64-2d1f0c8b7a10 --output walk.gpx
              stepcompass gpx 3f2a9c1e-0b7d-4e55-9a64-2d1f0c8b7a10 phone-1 --output -
            """)

    @OptionGroup var client: ClientOptions

    @Argument(help: "The walk's id, as `stepcompass walks` lists it.")
    var walk: String

    @Argument(help: ArgumentHelp("The device that walked it (default: the only device that has published).", valueName: "device"))
    var deviceArgument: String?

    @Option(name: .customLong("device"), help: "The device, as the other commands take it.")
    var device: String?

    @Option(name: .customLong("output"), help: "The file to write (default WALK.gpx; - for standard output).")
    var output: String?

    @Option(name: .customLong("timeout"), help: "Seconds to wait for the reply.")
    var timeout: Double = 5

    func validate() throws {
        _ = try DeviceOptions.device(argument: deviceArgument, option: device)
        do { try JournalRequester.validate(walk: walk) } catch { throw ValidationError(error.message) }
        if let output, output.isEmpty { throw ValidationError("--output is empty: give a file, or - for standard output") }
        guard timeout.isFinite, timeout > 0, timeout <= 300 else {
            throw ValidationError("--timeout must be more than 0 and at most 300 seconds")
        }
    }

    func run() async throws {
        let requested = try DeviceOptions.device(argument: deviceArgument, option: device)
        let (walk, output, timeout) = (walk, output ?? "\(walk).gpx", Duration.seconds(checked: timeout))
        try await ClientConnection.run(client) { connection in
            let device = try await DeviceDiscovery(bus: connection.bus, topics: connection.topics).resolve(requested)
            let reply = try await JournalRequester(bus: connection.bus, topics: connection.topics, timeout: timeout)
                .gpx(of: walk, device: device)
            if output == "-" {
                Terminal.write(try reply.document())
                return
            }
            Terminal.print(try reply.write(to: output))
        }
    }
}
