/// The buffer between a bus's network side and one subscription's consumer.
///
/// Unlike `AsyncStream`, cancelling a consumer's wait does not end the channel: the waiting `next()`
/// returns nil and the next call waits again. That lets a caller wait for a message with a timeout and
/// keep the subscription. One consumer at a time.
///
/// Messages always go into the buffer and a waiting consumer is only woken, so a producer that has
/// several messages at once (``yield(contentsOf:)``) wakes the consumer once for all of them, and a
/// consumer that is still running takes the next message under one lock without suspending.
public final class MessageChannel: Sendable {
    private struct State {
        var buffer: [BusMessage] = []
        var head = 0
        var waiter: (id: Int, continuation: CheckedContinuation<Void, Never>)?
        var nextWaiterID = 0
        var finished = false
        /// Messages refused since the channel was made: it was full (or finished).
        var dropped = 0

        var count: Int { buffer.count - head }

        mutating func popFirst() -> BusMessage? {
            guard head < buffer.count else { return nil }
            let message = buffer[head]
            head += 1
            compact()
            return message
        }

        /// Up to `limit` buffered messages, oldest first.
        mutating func popBatch(limit: Int) -> [BusMessage] {
            let end = min(buffer.count, head + limit)
            let batch = Array(buffer[head..<end])
            head = end
            compact()
            return batch
        }

        /// Drops what was read: all of it once the buffer is empty, else when half of a long buffer is read.
        private mutating func compact() {
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
        }

        mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
            defer { waiter = nil }
            return waiter?.continuation
        }
    }

    /// What a waiting `next()` found under the lock.
    private enum Poll {
        case message(BusMessage)
        case end
        case wait(id: Int)
    }

    /// What a waiting `nextBatch(limit:)` found under the lock (an empty batch ends the consumer).
    private enum BatchPoll {
        case batch([BusMessage])
        case wait(id: Int)
    }

    private let state = LockedValue(State())
    private let limit: Int

    /// Creates a channel that holds at most `limit` unread messages.
    public init(limit: Int) {
        self.limit = limit
    }

    /// Adds a message; returns false when the channel is full or finished and the message was dropped.
    @discardableResult
    public func yield(_ message: BusMessage) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !state.finished, state.count < limit else {
                state.dropped += 1
                return (false, nil)
            }
            state.buffer.append(message)
            return (true, state.takeWaiter())
        }
        waiter?.resume()
        return accepted
    }

    /// Adds messages in order, waking a waiting consumer once for all of them.
    /// - Returns: How many were dropped because the channel was full or finished.
    @discardableResult
    public func yield(contentsOf messages: [BusMessage]) -> Int {
        guard !messages.isEmpty else { return 0 }
        let (dropped, waiter) = state.withLock { state -> (Int, CheckedContinuation<Void, Never>?) in
            if state.finished {
                state.dropped += messages.count
                return (messages.count, nil)
            }
            let room = max(0, limit - state.count)
            if room >= messages.count && state.count == 0 {
                state.buffer = messages  // shares the batch's storage instead of copying every message
                state.head = 0
            } else if room >= messages.count {
                state.buffer.append(contentsOf: messages)
            } else {
                state.buffer.append(contentsOf: messages[..<room])
            }
            let accepted = min(room, messages.count)
            state.dropped += messages.count - accepted
            return (messages.count - accepted, accepted > 0 ? state.takeWaiter() : nil)
        }
        waiter?.resume()
        return dropped
    }

    /// The messages buffered and not yet read (the subscription's backlog), for metrics.
    public var bufferedCount: Int { state.withLock { $0.count } }

    /// The messages refused since the channel was made, because it held `limit` unread ones (or had finished).
    public var droppedCount: Int { state.withLock { $0.dropped } }

    /// Ends the channel: the consumer reads what is buffered, then nil.
    public func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            return state.takeWaiter()
        }
        waiter?.resume()
    }

    /// The next message; nil when the channel has finished or the calling task is cancelled.
    public func next() async -> BusMessage? {
        while true {
            let poll = state.withLock { state -> Poll in
                if let message = state.popFirst() { return .message(message) }
                if state.finished || Task.isCancelled { return .end }
                state.nextWaiterID += 1
                return .wait(id: state.nextWaiterID)
            }
            switch poll {
            case .message(let message): return message
            case .end: return nil
            case .wait(let id): await wait(id: id)
            }
        }
    }

    /// Every buffered message up to `limit`, in order, waiting like ``next()`` while none is buffered; empty when
    /// the channel has finished or the calling task is cancelled. One lock and at most one suspension per batch,
    /// for a consumer that handles messages faster in groups (such as one actor hop per batch).
    public func nextBatch(limit: Int) async -> [BusMessage] {
        precondition(limit >= 1, "a batch holds at least one message")
        while true {
            let poll = state.withLock { state -> BatchPoll in
                if state.count > 0 { return .batch(state.popBatch(limit: limit)) }
                if state.finished || Task.isCancelled { return .batch([]) }
                state.nextWaiterID += 1
                return .wait(id: state.nextWaiterID)
            }
            switch poll {
            case .batch(let batch): return batch
            case .wait(let id): await wait(id: id)
            }
        }
    }

    /// Suspends until a message is buffered, the channel finishes or the task is cancelled; the caller
    /// then looks again.
    private func wait(id: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.count > 0 || state.finished || Task.isCancelled { return true }
                    state.waiter = (id, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume()
        }
    }
}
