import ArgumentParser
import BusTesting

/// The private mosquitto a load tool measures through.
enum PrivateBroker {
    /// Launches a broker with `configuration`, runs `measure` against it and shuts it down whatever happens; exits with
    /// code 3 when the measurement did not pass.
    static func measure(configuration: String, _ measure: (MosquittoBrokerProcess) async throws -> Bool) async throws {
        if !(try await with(configuration: configuration, measure)) { throw ExitCode(3) }
    }

    /// Launches a broker with `configuration`, runs `body` against it and shuts it down whatever happens.
    static func with<T>(configuration: String, _ body: (MosquittoBrokerProcess) async throws -> T) async throws -> T {
        let broker = try await MosquittoBrokerProcess.launch(configuration: configuration)
        let result: T
        do {
            result = try await body(broker)
        } catch {
            await broker.shutdown()
            throw error
        }
        await broker.shutdown()
        return result
    }
}
