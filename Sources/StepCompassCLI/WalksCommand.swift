import ArgumentParser
import Foundation
import ServiceRuntime
import StepCompassClient

/// `stepcompass walks`: a device's walks, from the journal.
struct WalksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "walks",
        abstract: "List a device's walks, newest first: id, name, start, stop, distance and photos.",
        discussion: """
            Asks the journal (stepcompass-journal) on journal/walks and prints its reply as a table, \
            newest first, times in UTC; a walk that is on shows "on" for its stop. The id is what \
            `stepcompass gpx` takes. An error reply is printed on standard error with a non-zero exit \
            status. Without a device it lists the only device that has published.

            Examples:
              stepcompass walks
              stepcompass walks phone-1 --limit 10
              stepcompass walks --json
            """)

    @OptionGroup var client: ClientOptions

    @Argument(help: ArgumentHelp("The device (default: the only device that has published).", valueName: "device"))
    var deviceArgument: String?

    @Option(name: .customLong("device"), help: "The device, as the other commands take it.")
    var device: String?

    @Option(name: .customLong("limit"), help: "How many walks at most, 1...500 (default 50).")
    var limit: Int = 50

    @Flag(name: .customLong("json"), help: "Print the journal's reply as it came (JSON).")
    var json = false

    @Option(name: .customLong("timeout"), help: "Seconds to wait for the reply.")
    var timeout: Double = 5

    func validate() throws {
        _ = try DeviceOptions.device(argument: deviceArgument, option: device)
        guard JournalRequester.limits.contains(limit) else {
            throw ValidationError("--limit must be \(JournalRequester.limits.lowerBound)...\(JournalRequester.limits.upperBound), not \(limit)")
        }
        guard timeout.isFinite, timeout > 0, timeout <= 300 else {
            throw ValidationError("--timeout must be more than 0 and at most 300 seconds")
        }
    }

    func run() async throws {
        let requested = try DeviceOptions.device(argument: deviceArgument, option: device)
        let (limit, json, timeout) = (limit, json, Duration.seconds(checked: timeout))
        try await ClientConnection.run(client) { connection in
            let device = try await DeviceDiscovery(bus: connection.bus, topics: connection.topics).resolve(requested)
            let list = try await JournalRequester(bus: connection.bus, topics: connection.topics, timeout: timeout)
                .walks(of: device, limit: limit)
            if json {
                Terminal.print(String(decoding: list.payload, as: UTF8.self))
                if (try? list.walks()) == nil { throw ExitCode.failure }
                return
            }
            for line in try list.table() { Terminal.print(line) }
        }
    }
}
