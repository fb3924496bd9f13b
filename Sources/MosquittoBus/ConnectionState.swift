import Bus

/// The mutable state of a ``MosquittoBus``, guarded by its mutex.
///
/// Written by the network thread's callbacks and read by publishers and subscribers; every transition
/// happens under the lock, and continuations are resumed there (resuming never blocks).
struct ConnectionState {
    enum Phase: Equatable {
        case idle, connecting, connected, stopped
    }

    var phase: Phase = .idle
    var threadStarted = false
    var stopRequested = false
    var sendDisconnectOnStop = true
    var connectCount = 0
    var lastError: String?
    var connectWaiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    var nextWaiterID = 0
    /// SUBSCRIBE/UNSUBSCRIBE message ids sent by callers and not yet acknowledged.
    var awaitingAck: Set<Int32> = []
    /// Acknowledgements that arrived before their caller started waiting.
    var acks: [Int32: [Int32]] = [:]
    var ackWaiters: [Int32: CheckedContinuation<[Int32], any Error>] = [:]
    /// Message ids of the resubscriptions sent on reconnect; the birth message follows their SUBACKs.
    var resubscribeMids: Set<Int32> = []
    var birth: BusMessage?
    /// Retained messages the client owns, by topic, published again after every reconnect before the birth message.
    var restated: [String: BusMessage] = [:]
    /// What a reconnect publishes once resubscribed: the restated messages (by topic), then the birth message.
    var afterReconnect: [BusMessage] {
        restated.keys.sorted().compactMap { restated[$0] } + (birth.map { [$0] } ?? [])
    }
    var threadFinished = false
    var threadExitWaiters: [CheckedContinuation<Void, Never>] = []
}
