import ArgumentParser
import Foundation
import StepCompassClient

/// `stepcompass status`: every service's retained status, and the broker's.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every service's state, version and uptime, and the broker's.",
        discussion: """
            Reads the retained statuses on stepcompass/services/{service}/status (sensors, compass, \
            position, markers, dashboard, bridge, activity, journal, and any other service that has one) \
            and prints a table: state (online, offline, or never seen when there is no status), version, \
            when the service started and its uptime. The broker's line comes from mosquitto's own $SYS \
            topics ($SYS/broker/version, uptime, clients/connected; updated every sys_interval seconds); \
            when the broker's ACL keeps $SYS/# from this user (mosquitto then sends nothing) or it \
            publishes none, the line says so. It reads the retained \
            messages up to its own sync marker, so it answers as soon as the broker has replayed them.

            Exit status: 0 every service is online; 1 one or more is offline, never seen or has an \
            unreadable status (the table is printed all the same); 69 the broker cannot be reached.

            Examples:
              stepcompass status
              stepcompass status --json
              stepcompass status >/dev/null && echo "all online"
            """)

    @OptionGroup var client: ClientOptions

    @Flag(name: .customLong("json"), help: "Print the statuses as JSON (state: online, offline, missing or unreadable).")
    var json = false

    @OptionGroup var retained: RetainedReadOptions

    func run() async throws {
        let (json, window) = (json, retained.window)
        try await ClientConnection.run(client) { connection in
            let status = try await StackStatusReader(bus: connection.bus, topics: connection.topics, window: window).read()
            Terminal.print(json: json) {
                status.json()
            } lines: {
                status.lines()
            }
            if !status.allOnline { throw ExitCode.failure }
        }
    }
}
