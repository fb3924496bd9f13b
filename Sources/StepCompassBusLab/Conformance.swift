import ArgumentParser
import Bus
import BusTesting
import MosquittoBus

/// Runs the bus conformance suite against a broker (used under ThreadSanitizer, see `make tsan`).
struct Conformance: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the bus conformance suite against a broker, or against a private one it starts.")

    @Option(help: "Broker port; without it a private mosquitto is started on a free port.") var port: Int?
    @Option(help: "MQTT protocol version: 5 or 3.1.1.") var mqttProtocol = "5"
    @Option(help: "How many times to run the suite.") var rounds: Int = 1

    func run() async throws {
        let version: MosquittoConfiguration.ProtocolVersion = mqttProtocol == "3.1.1" ? .v311 : .v5
        let broker = port == nil ? try await MosquittoBrokerProcess.launch() : nil
        let harness = MosquittoHarness(port: port ?? broker!.port, protocolVersion: version)
        var failures = 0
        for _ in 0..<rounds {
            await withTaskGroup(of: String?.self) { group in
                for check in BusConformance.allCases {
                    group.addTask {
                        do {
                            try await check.run(on: harness)
                            return nil
                        } catch {
                            return "\(check): \(error)"
                        }
                    }
                }
                for await failure in group {
                    if let failure {
                        failures += 1
                        print("FAIL \(failure)")
                    }
                }
            }
        }
        await broker?.shutdown()
        print("\(BusConformance.allCases.count * rounds - failures) passed, \(failures) failed")
        if failures > 0 { throw ExitCode(1) }
    }
}
