import ServiceRuntime

/// Why a refresh runs.
enum RefreshTrigger: Sendable {
    case startup, scheduled, command
}

/// The source of refresh triggers: the start, `cmd/refresh`, and a timer re-armed after each
/// fetch (the refresh interval after a success, the backoff delay after a failure).
///
/// The triggers form an `AsyncStream` that keeps only the newest pending trigger, so commands
/// arriving during a fetch coalesce into one more fetch instead of a queue of them.
///
/// The timer sleeps on the service's clock (its context's: continuous in the executable; a manual one in tests, which
/// then see exactly which delay was armed and decide when it passes).
actor RefreshScheduler {
    let triggers: AsyncStream<RefreshTrigger>
    private let continuation: AsyncStream<RefreshTrigger>.Continuation
    private let clock: ServiceClock
    private var timer: Task<Void, Never>?

    init(clock: ServiceClock) {
        self.clock = clock
        (triggers, continuation) = AsyncStream.makeStream(of: RefreshTrigger.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a refresh now.
    func trigger(_ trigger: RefreshTrigger) {
        continuation.yield(trigger)
    }

    /// Arms the timer: one `.scheduled` trigger after `delay`, replacing any armed one.
    func schedule(after delay: Duration) {
        timer?.cancel()
        let continuation = continuation
        let clock = clock
        timer = Task {
            do {
                try await clock.sleep(for: delay)
                continuation.yield(.scheduled)
            } catch {
                // Re-armed or stopped.
            }
        }
    }

    /// Stops the timer and ends the trigger stream.
    func stop() {
        timer?.cancel()
        timer = nil
        continuation.finish()
    }
}
