extension BusSubscription {
    /// The next message, or nil once `deadline` passes (or the task is cancelled); the subscription stays usable.
    ///
    /// For a service or client that reads what is there within a bound, such as retained messages at start-up.
    ///
    /// A message that arrives just as the deadline passes is returned, never lost: both children are drained.
    public func next(before deadline: ContinuousClock.Instant) async -> BusMessage? {
        let subscription = self
        return await withTaskGroup(of: BusMessage?.self) { group in
            group.addTask {
                var iterator = subscription.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            var result = await group.next() ?? nil
            group.cancelAll()
            for await other in group where result == nil {
                result = other
            }
            return result
        }
    }
}

/// What ``BusSubscription/nextBatch(limit:before:)`` found.
public enum SubscriptionBatch: Sendable {
    /// At least one message.
    case messages([BusMessage])
    /// The deadline passed with nothing at hand.
    case timeout
    /// The subscription ended (the bus closed).
    case ended
}

extension BusSubscription {
    /// The messages at hand (waiting for at least one, at most `limit`), or ``SubscriptionBatch/timeout`` once
    /// `deadline` passes; ``SubscriptionBatch/ended`` when the subscription ends.
    ///
    /// For a service that batches its input and also has timed work (a held publish, a retention, a rest timer). A
    /// batch taken just as the deadline passes is returned, never lost.
    public func nextBatch(limit: Int, before deadline: ContinuousClock.Instant) async -> SubscriptionBatch {
        await nextBatch(limit: limit, before: deadline, clock: ContinuousClock())
    }

    /// As ``nextBatch(limit:before:)``, with the deadline on `clock` (a service's own, a manual one in tests).
    public func nextBatch<C: Clock>(limit: Int, before deadline: C.Instant, clock: C) async -> SubscriptionBatch {
        let subscription = self
        return await withTaskGroup(of: SubscriptionBatch.self) { group in
            group.addTask {
                let batch = await subscription.nextBatch(limit: limit)
                return batch.isEmpty ? .ended : .messages(batch)
            }
            group.addTask {
                try? await clock.sleep(until: deadline, tolerance: nil)
                return .timeout
            }
            let first = await group.next() ?? .timeout
            group.cancelAll()
            // The batch child may have taken messages just as the timer fired: they are returned, never dropped.
            var taken: [BusMessage] = []
            if case .messages(let messages) = first { taken = messages }
            for await other in group {
                if case .messages(let messages) = other { taken += messages }
            }
            if !taken.isEmpty { return .messages(taken) }
            if case .ended = first { return .ended }
            return .timeout
        }
    }
}
