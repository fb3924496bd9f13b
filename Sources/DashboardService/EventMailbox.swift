import Bus

/// What one browser's event stream still has to send: a set of kinds, not a queue of messages.
///
/// The hub marks kinds as changed; the stream's writer takes the set and sends the current view of each.
/// A slow browser therefore never falls behind on a backlog: many heading changes between two writes
/// become one `device` event with the latest heading.
final class EventMailbox: Sendable {
    /// The device the browser asked for, nil to follow the default (first seen) device.
    let requestedDevice: String?
    /// Wakes the writer; at most one wake-up is buffered.
    let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private let pending = LockedValue<Set<EventKind>>([])

    init(requestedDevice: String?) {
        self.requestedDevice = requestedDevice
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Marks kinds as changed.
    func post(_ kinds: Set<EventKind>) {
        guard !kinds.isEmpty else { return }
        pending.withLock { $0.formUnion(kinds) }
        wake.yield()
    }

    /// Takes every changed kind.
    func take() -> Set<EventKind> {
        pending.withLock { kinds in
            defer { kinds.removeAll() }
            return kinds
        }
    }

    /// Ends the writer's loop.
    func close() {
        wake.finish()
    }
}
