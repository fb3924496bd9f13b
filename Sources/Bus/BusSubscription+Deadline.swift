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
