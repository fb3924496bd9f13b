public import Bus

extension BusSubscription {
    /// Collects `count` messages, or those that arrived before `timeout` passed. The subscription stays
    /// usable afterwards.
    public func collect(_ count: Int, timeout: Duration = .seconds(5)) async -> [BusMessage] {
        let received = MessageBox()
        let subscription = self
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                guard count > 0 else { return }
                var iterator = subscription.makeAsyncIterator()
                while let message = await iterator.next() {
                    let done = received.messages.withLock { list -> Bool in
                        list.append(message)
                        return list.count >= count
                    }
                    if done { return }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
            }
            await group.next()
            group.cancelAll()
        }
        return received.messages.withLock { $0 }
    }

    /// The next message, or nil when none arrives within `timeout`.
    public func next(timeout: Duration = .seconds(5)) async -> BusMessage? {
        await collect(1, timeout: timeout).first
    }
}

/// Messages gathered by a child task and read by its parent.
private final class MessageBox: Sendable {
    let messages = LockedValue<[BusMessage]>([])
}

extension BusSubscription {
    /// The first message that satisfies `condition` within `timeout` (messages before it are dropped), nil when none.
    public func first(within timeout: Duration = .seconds(60), where condition: (BusMessage) -> Bool) async -> BusMessage? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while let message = await next(before: deadline) {
            if condition(message) { return message }
        }
        return nil
    }
}
