import ArgumentParser
import StepCompassClient

/// `stepcompass refresh-markers`.
struct RefreshMarkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh-markers",
        abstract: "Make the marker service fetch its source again, and show the result.",
        discussion: """
            Publishes {} on markers/cmd/refresh and follows markers/status until the fetch has \
            finished. Exits with 1 when the fetch failed (the service keeps its last good markers), \
            and with 69 when the marker service did not answer.

            Example:
              stepcompass refresh-markers --wait 30
            """)

    @OptionGroup var client: ClientOptions

    @Option(name: .customLong("wait"), help: "Seconds to wait for the fetch to finish.")
    var wait: Double = 10

    func validate() throws {
        guard wait.isFinite, wait > 0, wait <= 600 else { throw ValidationError("--wait must be more than 0 and at most 600 seconds") }
    }

    func run() async throws {
        let wait = Duration.seconds(checked: wait)
        try await ClientConnection.run(client) { connection in
            let outcome = try await MarkersRefresher(bus: connection.bus, topics: connection.topics, window: wait)
                .refresh(progress: { Terminal.print($0) })
            for line in outcome.lines { Terminal.print(line) }
            switch outcome {
            case .noAnswer: throw ExitCode(69)  // EX_UNAVAILABLE, as when the broker is not there
            case .finished where outcome.failed: throw ExitCode.failure
            case .finished: break
            }
        }
    }
}
