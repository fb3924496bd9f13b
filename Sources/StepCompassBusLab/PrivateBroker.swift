import ArgumentParser
import BusTesting

/// The private mosquitto a load tool measures through.
enum PrivateBroker {
    /// Launches a broker with `configuration`, runs `measure` against it and shuts it down whatever happens; exits with
    /// code 3 when the measurement did not pass.
    static func measure(configuration: String, _ measure: (MosquittoBrokerProcess) async throws -> Bool) async throws {
        let broker = try await MosquittoBrokerProcess.launch(configuration: configuration)
        let passed: Bool
        do {
            passed = try await measure(broker)
        } catch {
            await broker.shutdown()
            throw error
        }
        await broker.shutdown()
        if !passed { throw ExitCode(3) }
    }
}
