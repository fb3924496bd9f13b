import Synchronization

/// A clock that moves only when the test says so. Services get it through `ServiceClock` (their context's clock):
/// their timers, windows and timestamps then run on the test's time. The test sees each delay the code arms
/// (``nextSleep(within:)``) or waits until it sleeps (``waitForSleepers(_:)``), and decides when time has passed
/// (``advance(by:)``).
///
/// So a test can show that a retry is armed for the refresh interval and that nothing happens a second before it, or
/// that a device goes stale after exactly its stale time, without waiting or sleeping to see nothing happen.
package final class ManualClock: Clock, Sendable {
    package struct Instant: InstantProtocol {
        package var offset: Duration

        package init(offset: Duration) {
            self.offset = offset
        }

        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        /// Delays armed and not yet handed to the test.
        var armed: [Duration] = []
        /// A test waiting for the next armed delay.
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Duration?, Never>)] = []
        /// Tests waiting for at least `count` sleepers (``waitForSleepers(_:)``).
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// The sleeper waiters the present sleepers satisfy, removed.
        mutating func satisfiedSleeperWaiters() -> [CheckedContinuation<Void, Never>] {
            let count = sleepers.count
            let satisfied = sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
            sleeperWaiters.removeAll { $0.count <= count }
            return satisfied
        }

        mutating func newID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private let state = Mutex(State())

    package init() {}

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }

    /// Sleepers not yet woken.
    package var pendingSleepers: Int { state.withLock { $0.sleepers.count } }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { $0.newID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome {
                    case cancelled, due
                    case waiting(CheckedContinuation<Duration?, Never>?, Duration, [CheckedContinuation<Void, Never>])
                }
                let outcome = state.withLock { state -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= state.now { return .due }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let delay = state.now.duration(to: deadline)
                    let sleeperWaiters = state.satisfiedSleeperWaiters()
                    if state.waiters.isEmpty {
                        state.armed.append(delay)
                        return .waiting(nil, delay, sleeperWaiters)
                    }
                    return .waiting(state.waiters.removeFirst().continuation, delay, sleeperWaiters)
                }
                switch outcome {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .due: continuation.resume()
                case .waiting(let waiter, let delay, let sleeperWaiters):
                    waiter?.resume(returning: delay)
                    for sleeperWaiter in sleeperWaiters { sleeperWaiter.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on, waking every sleeper whose deadline has come, earliest first.
    package func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// The next delay the code under test arms (a sleep begun on this clock), in the order they were armed; nil when
    /// none is armed within `timeout` of real time.
    package func nextSleep(within timeout: Duration = .seconds(30)) async -> Duration? {
        await withTaskGroup(of: Duration?.self) { group in
            group.addTask { await self.nextSleep() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    private func nextSleep() async -> Duration? {
        let id = state.withLock { $0.newID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Duration?, Never>) in
                let ready = state.withLock { state -> Duration?? in
                    if !state.armed.isEmpty { return .some(state.armed.removeFirst()) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Duration?, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Returns once at least `count` tasks are asleep on the clock (so an ``advance(by:)`` after it reaches them).
    package func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
