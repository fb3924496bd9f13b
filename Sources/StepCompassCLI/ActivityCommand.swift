import ArgumentParser
import Foundation
import ServiceRuntime
import StepCompassClient

/// `stepcompass activity`: a device's steps today and over the last days, from the activity service.
struct ActivityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity",
        abstract: "Show a device's steps today and over the last days, its band, cadence and playlist suggestion.",
        discussion: """
            Reads the retained stepcompass/{device}/activity message of the activity service \
            (stepcompass-activity): today's steps, the last days with a bar each, the activity band, the \
            cadence, and the suggested playlist, or why there is none. Without --device it shows the only \
            device that has an activity message.

            Examples:
              stepcompass activity
              stepcompass activity --device phone-1 --days 3
              stepcompass activity --json
            """)

    @OptionGroup var client: ClientOptions

    @Option(name: .customLong("device"), help: "The device (default: the only device with an activity message).")
    var device: String?

    @Option(name: .customLong("days"), help: "How many of the last days to list, today included, 1...7 (default 7).")
    var days: Int = 7

    @Option(name: .customLong("wait"), help: "Seconds to wait for the retained message (default 2).")
    var wait: Double = 2

    @Flag(name: .customLong("json"), help: "Print the activity message as it came (JSON).")
    var json = false

    func validate() throws {
        if let device {
            do { try DeviceID.validate(device) } catch { throw ValidationError("--device: \(error.message)") }
        }
        guard (1...7).contains(days) else { throw ValidationError("--days must be 1...7, not \(days)") }
        guard wait.isFinite, wait > 0, wait <= 300 else { throw ValidationError("--wait must be more than 0 and at most 300 seconds") }
    }

    func run() async throws {
        let (requested, days, window, json) = (device, days, Duration.seconds(checked: wait), json)
        try await ClientConnection.run(client) { connection in
            let (device, report, payload) = try await ActivityReader(bus: connection.bus, topics: connection.topics, window: window)
                .read(requested)
            if json {
                Terminal.print(String(decoding: payload, as: UTF8.self))
                return
            }
            for line in report.lines(device: device, days: days) { Terminal.print(line) }
        }
    }
}
