import ArgumentParser
import Foundation
import ServiceRuntime
import StepCompassClient

/// `stepcompass history`: a device's steps per minute, hour or day over a range, from the activity service.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print a device's steps per minute, hour or day over a range, as a table or CSV.",
        discussion: """
            Asks the activity service (stepcompass-activity) on activity/history and prints its reply: \
            each bucket's start (in the device's time zone) and steps, then the total; --csv prints \
            start,steps with the starts in ISO 8601 UTC. --to defaults to now, --from to an hour, a day \
            or a week before --to (for minute, hour, day). An error reply is printed on standard error \
            with a non-zero exit status.

            Examples:
              stepcompass history --granularity day
              stepcompass history --from 2026-11-23T00:00:00Z --to 2026-11-24T00:00:00Z --granularity hour
              stepcompass history --granularity minute --csv > minutes.csv
            """)

    @OptionGroup var client: ClientOptions

    @Option(name: .customLong("device"), help: "The device (default: the only device that has published).")
    var device: String?

    @Option(name: .customLong("from"), help: "Start of the range, ISO 8601 (2026-11-23T08:00:00Z).")
    var from: String?

    @Option(name: .customLong("to"), help: "End of the range, ISO 8601 (default now).")
    var to: String?

    @Option(name: .customLong("granularity"), help: "minute, hour or day (default hour).")
    var granularity: String = "hour"

    @Flag(name: .customLong("csv"), help: "Print CSV: start,steps.")
    var csv = false

    @Flag(name: .customLong("json"), help: "Print the activity service's reply as it came (JSON).")
    var json = false

    @Option(name: .customLong("timeout"), help: "Seconds to wait for the reply.")
    var timeout: Double = 5

    func validate() throws {
        _ = try range()
        if let device {
            do { try DeviceID.validate(device) } catch { throw ValidationError("--device: \(error.message)") }
        }
        guard !(csv && json) else { throw ValidationError("--csv and --json do not go together") }
        guard timeout.isFinite, timeout > 0, timeout <= 300 else {
            throw ValidationError("--timeout must be more than 0 and at most 300 seconds")
        }
    }

    private func range() throws -> (from: Date, to: Date, granularity: HistoryQuery.Granularity) {
        guard let granularity = HistoryQuery.Granularity(rawValue: granularity.lowercased()) else {
            throw ValidationError("--granularity must be minute, hour or day, not '\(granularity)'")
        }
        do {
            let end = try to.map { try HistoryQuery.date($0, option: "--to") } ?? Date()
            let start = try from.map { try HistoryQuery.date($0, option: "--from") } ?? end.addingTimeInterval(-granularity.defaultSpan)
            // Checked here with a stand-in device, so a bad range is a usage error before connecting.
            _ = try HistoryQuery(device: "device", from: start, to: end, granularity: granularity)
            return (start, end, granularity)
        } catch let error as StepCompassClientError {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let (from, to, granularity) = try range()
        let (requested, timeout, csv, json) = (device, Duration.seconds(checked: timeout), csv, json)
        try await ClientConnection.run(client) { connection in
            let device = try await DeviceDiscovery(bus: connection.bus, topics: connection.topics).resolve(requested)
            let query = try HistoryQuery(device: device, from: from, to: to, granularity: granularity)
            let result = try await HistoryRequester(bus: connection.bus, topics: connection.topics, timeout: timeout).send(query)
            if json {
                Terminal.print(String(decoding: result.payload, as: UTF8.self))
                if (try? result.buckets()) == nil { throw ExitCode.failure }
                return
            }
            for line in try (csv ? result.csv() : result.table()) { Terminal.print(line) }
        }
    }
}
