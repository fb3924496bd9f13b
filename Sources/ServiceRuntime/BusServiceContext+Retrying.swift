import Logging
import ServiceLifecycle

extension BusServiceContext {
    /// Runs `operation` until it succeeds, waiting 250 ms after the first failure and twice as long after each next
    /// one (at most 30 s), with a warning each time: for a database that may be restarting, so that nothing received
    /// is lost while it is away. Only cancellation, or an error `isPermanent` says retrying cannot mend, ends it early.
    /// - Parameters:
    ///   - what: What is being done, for the log ("store a batch of steps").
    ///   - isPermanent: Errors to throw at once (a walk that is already on, ...).
    ///   - isolation: The caller's actor, on which `operation` runs.
    public func retrying<T>(
        _ what: String, isPermanent: (any Error) -> Bool = { _ in false }, isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> T
    ) async throws -> T {
        var delay = Duration.milliseconds(250)
        while true {
            do {
                return try await operation()
            } catch {
                if isPermanent(error) { throw error }
                if Task.isCancelled { throw CancellationError() }
                logger.warning("could not \(what); retrying", metadata: ["error": "\(error)", "retryIn": "\(delay)"])
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(30))
            }
        }
    }
}

extension BusServiceContext {
    /// Opens a service's database at start: `migrate` is retried with backoff while the database is unreachable or
    /// still starting (compose starts PostgreSQL beside the services), until it succeeds or the service is told to stop.
    /// - Parameters:
    ///   - what: The database, for the log ("the activity database").
    ///   - migrate: Brings the schema up to date.
    /// - Returns: false when the service was told to stop first (its database client may report the cancellation its
    ///   own way): then there is nothing to do but close the store.
    public func openDatabase(_ what: String, migrate: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        do {
            try await cancelWhenGracefulShutdown { try await self.retrying("open \(what)") { try await migrate() } }
            return true
        } catch let error where Task.isCancelled || error is CancellationError {
            return false
        }
    }
}
