
/// The buffer between a bus's network side and one subscription's consumer.
///
/// Unlike `AsyncStream`, cancelling a consumer's wait does not end the channel: the waiting `next()`
/// returns nil and the next call waits again. That lets a caller wait for a message with a timeout and
/// keep the subscription. One consumer at a time.
public final class MessageChannel: Sendable {
    private struct State {
        var buffer: [BusMessage] = []
        var head = 0
        var waiter: (id: Int, continuation: CheckedContinuation<BusMessage?, Never>)?
        var nextWaiterID = 0
        var finished = false

        var count: Int { buffer.count - head }

        mutating func popFirst() -> BusMessage? {
            guard head < buffer.count else { return nil }
            let message = buffer[head]
            head += 1
            if head >= 1024 && head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return message
        }
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
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<BusMessage?, Never>?) in
            if state.finished { return (false, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter.continuation)
            }
            guard state.count < limit else { return (false, nil) }
            state.buffer.append(message)
            return (true, nil)
        }
        waiter?.resume(returning: message)
        return accepted
    }

    /// Ends the channel: the consumer reads what is buffered, then nil.
    public func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<BusMessage?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter?.continuation
        }
        waiter?.resume(returning: nil)
    }

    /// The next message; nil when the channel has finished or the calling task is cancelled.
    public func next() async -> BusMessage? {
        if let ready = state.withLock({ $0.popFirst() }) { return ready }
        let id = state.withLock { state -> Int in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<BusMessage?, Never>) in
                let immediate: BusMessage?? = state.withLock { state in
                    if let message = state.popFirst() { return .some(message) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = (id, continuation)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<BusMessage?, Never>? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: nil)
        }
    }
}
