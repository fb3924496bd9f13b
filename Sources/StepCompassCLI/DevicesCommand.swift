import ArgumentParser
import Foundation
import StepCompassClient

/// `stepcompass devices`: the devices with retained messages.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the devices the broker keeps retained messages for, when each was last seen, and its topics.",
        discussion: """
            Reads the retained per-device topics (permissions, heading, calibration, bearing-lock, \
            position, activity, journal) up to its own sync marker and prints one row per device: its id, \
            when it was last seen (the latest timestamp among its retained messages, in UTC) and which of \
            those topics it has. A device shows here until it is forgotten (stepcompass forget DEVICE).

            Examples:
              stepcompass devices
              stepcompass devices --json
            """)

    @OptionGroup var client: ClientOptions

    @Flag(name: .customLong("json"), help: "Print the devices as JSON: {\"devices\": [{\"device\", \"lastSeen\", \"topics\"}]}.")
    var json = false

    @OptionGroup var retained: RetainedReadOptions

    func run() async throws {
        let (json, window) = (json, retained.window)
        try await ClientConnection.run(client) { connection in
            let devices = try await DeviceDiscovery(bus: connection.bus, topics: connection.topics, window: window).inventory()
            Terminal.print(json: json) {
                DiscoveredDevice.json(devices)
            } lines: {
                DiscoveredDevice.table(devices)
            }
        }
    }
}
