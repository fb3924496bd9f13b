import ArgumentParser
import ServiceRuntime
import StepCompassClient

/// `true` or `magnetic` on the command line.
enum NorthArgument: String, ExpressibleByArgument, CaseIterable {
    case `true`, magnetic

    var reference: NorthReference { self == .true ? .true : .magnetic }
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
