import ArgumentParser
import DashboardKit
import Foundation
import ServiceRuntime
import StepCompassClient

/// `stepcompass nearest`: the markers nearest a marker or a coordinate.
struct NearestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearest",
        abstract: "List the markers nearest a marker or a coordinate, with distances in miles.",
        discussion: """
            Asks the marker service (stepcompass-markers) on markers/nearest and prints its reply, \
            nearest first. An error reply (an unknown marker, markers not loaded yet) is printed on \
            standard error with a non-zero exit status.

            Examples:
              stepcompass nearest muc-015
              stepcompass nearest --lat 48.1374 --lon 11.5755 --count 5
              stepcompass nearest muc-015 --json
            """)

    @OptionGroup var client: ClientOptions

    @Argument(help: "The id of the marker to measure from.")
    var id: String?

    @Option(name: .customLong("lat"), parsing: .unconditional, help: "Latitude to measure from (with --lon).")
    var latitude: Double?

    @Option(name: .customLong("lon"), parsing: .unconditional, help: "Longitude to measure from (with --lat).")
    var longitude: Double?

    @Option(name: .customLong("count"), help: "How many markers, 1...50.")
    var count: Int = 3

    @Option(name: .customLong("timeout"), help: "Seconds to wait for the reply.")
    var timeout: Double = 5

    @Flag(name: .customLong("json"), help: "Print the marker service's reply as it came (JSON).")
    var json = false

    func validate() throws {
        _ = try query()
        guard timeout.isFinite, timeout > 0, timeout <= 300 else {
            throw ValidationError("--timeout must be more than 0 and at most 300 seconds")
        }
    }

    private func query() throws -> NearestQuery {
        let origin: NearestQuery.Origin
        switch (id, latitude, longitude) {
        case (let id?, nil, nil): origin = .marker(id: id)
        case (nil, let latitude?, let longitude?): origin = .coordinate(latitude: latitude, longitude: longitude)
        case (nil, nil, nil): throw ValidationError("give a marker id, or --lat and --lon")
        case (_?, _, _): throw ValidationError("give a marker id or --lat/--lon, not both")
        default: throw ValidationError("--lat and --lon go together")
        }
        do { return try NearestQuery(origin: origin, count: count) } catch { throw ValidationError(error.message) }
    }

    func run() async throws {
        let query = try query()
        let (timeout, json) = (Duration.seconds(checked: timeout), json)
        try await ClientConnection.run(client) { connection in
            let result = try await NearestRequester(bus: connection.bus, topics: connection.topics, timeout: timeout).send(query)
            if json {
                Terminal.print(String(decoding: result.payload, as: UTF8.self))
                if result.reply.error != nil { throw ExitCode.failure }
                return
            }
            for line in try result.lines() { Terminal.print(line) }
        }
    }
}
