import Bus

/// Caps the publishes handed to libmosquitto and not yet finished, and makes publishers wait beyond it.
///
/// libmosquitto queues every publish in client memory without limit, and its packet ids are 16-bit:
/// with more than 65,535 unacknowledged QoS 1/2 messages ids are reused and data is lost without an
/// error. The window turns that into back-pressure. A slot is reserved before `mosquitto_publish`,
/// committed with the message id it returned, and freed by the `on_publish` callback (PUBACK/PUBCOMP,
/// or written to the socket for QoS 0). The callback can run before the commit, so early completions
/// are remembered.
final class PublishWindow: Sendable {
    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var reserved = 0
        var outstanding: [Int32: QoS] = [:]
        var early: Set<Int32> = []
        var waiters: [Waiter] = []
        var drainWaiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextWaiterID = 0
        var peak = 0
        var closed = false

        var inUse: Int { reserved + outstanding.count }
    }

    private let state = LockedValue(State())
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The most slots ever in use at once (for tests of the cap).
    var peakInUse: Int { state.withLock { $0.peak } }
    var inUse: Int { state.withLock { $0.inUse } }

    /// Reserves a slot, waiting while the window is full.
    func reserve() async throws {
        let id = state.withLock { state -> Int? in
            if state.inUse < limit && state.waiters.isEmpty {
                state.reserved += 1
                state.peak = max(state.peak, state.inUse)
                return nil
            }
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: (any Error)?? = state.withLock { state in
                    if state.closed { return .some(BusError(.closed, "the bus was closed")) }
                    if Task.isCancelled { return .some(CancellationError()) }
                    if state.inUse < limit && state.waiters.isEmpty {
                        state.reserved += 1
                        state.peak = max(state.peak, state.inUse)
                        return .some(nil)
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                switch resumeNow {
                case .none: break
                case .some(.none): continuation.resume()
                case .some(.some(let error)): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Takes a slot without waiting, for publishes made inside a libmosquitto callback (which must not
    /// block); the window may exceed its limit by these few messages.
    func reserveImmediately() {
        state.withLock { state in
            state.reserved += 1
            state.peak = max(state.peak, state.inUse)
        }
    }

    /// Records the message id of a reserved slot's publish.
    func commit(mid: Int32, qos: QoS) {
        let wake = state.withLock { state -> Wake in
            state.reserved -= 1
            if state.early.remove(mid) == nil {
                state.outstanding[mid] = qos
                return Wake()
            }
            return Self.admit(&state, limit: limit)
        }
        resume(wake)
    }

    /// Gives back a reserved slot whose publish failed.
    func cancelReservation() {
        let wake = state.withLock { state -> Wake in
            state.reserved -= 1
            return Self.admit(&state, limit: limit)
        }
        resume(wake)
    }

    /// Frees the slot of a finished publish; called from libmosquitto's `on_publish` callback.
    func complete(mid: Int32) {
        let wake = state.withLock { state -> Wake in
            if state.outstanding.removeValue(forKey: mid) == nil {
                state.early.insert(mid)
                return Wake()
            }
            return Self.admit(&state, limit: limit)
        }
        resume(wake)
    }

    /// Frees the QoS 0 slots of a lost connection: libmosquitto drops unsent QoS 0 packets and never
    /// calls `on_publish` for them. QoS 1/2 messages stay: they are resent on reconnect.
    func connectionLost() {
        let wake = state.withLock { state -> Wake in
            state.outstanding = state.outstanding.filter { $0.value != .atMostOnce }
            state.early.removeAll()
            return Self.admit(&state, limit: limit)
        }
        resume(wake)
    }

    /// Waits until no publish is in flight; returns early (without error) when the task is cancelled.
    func drain() async {
        let id = state.withLock { state -> Int in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state -> Bool in
                    if state.inUse == 0 || state.closed || Task.isCancelled { return true }
                    state.drainWaiters.append((id, continuation))
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.drainWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.drainWaiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }

    /// Fails every waiting publisher; later reservations fail at once.
    func close() {
        let (waiters, drains) = state.withLock { state in
            state.closed = true
            defer {
                state.waiters.removeAll()
                state.drainWaiters.removeAll()
            }
            return (state.waiters, state.drainWaiters)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: BusError(.closed, "the bus was closed")) }
        for drain in drains { drain.continuation.resume() }
    }

    /// The continuations to resume once the lock is released.
    private struct Wake {
        var publishers: [Waiter] = []
        var drains: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Admits waiting publishers into free slots and, when nothing is in flight any more, releases the
    /// `drain()` callers; all under the one lock the caller holds (every publish passes here twice).
    private static func admit(_ state: inout State, limit: Int) -> Wake {
        var wake = Wake()
        while state.inUse < limit, !state.waiters.isEmpty {
            wake.publishers.append(state.waiters.removeFirst())
            state.reserved += 1
            state.peak = max(state.peak, state.inUse)
        }
        if state.inUse == 0 && !state.drainWaiters.isEmpty {
            wake.drains = state.drainWaiters
            state.drainWaiters.removeAll()
        }
        return wake
    }

    private func resume(_ wake: Wake) {
        for waiter in wake.publishers { waiter.continuation.resume() }
        for drain in wake.drains { drain.continuation.resume() }
    }
}
