import ServiceRuntime
import Synchronization

/// Wakes a loop that waits for work: ``signal()`` from anywhere; ``wait(atMost:)`` returns at the first signal since
/// the last wait, after the time given, or when the task is cancelled. Signals do not queue up: many are one.
final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiter, or the next wait when nobody waits.
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at a signal, after `timeout` on `clock` (the service's), or on cancellation.
    func wait(atMost timeout: Duration, on clock: ServiceClock) async {
        let timer = Task { [self] in
            try? await clock.sleep(for: timeout)
            if !Task.isCancelled { signal() }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
        timer.cancel()
    }
}
