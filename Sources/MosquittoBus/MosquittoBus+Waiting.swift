import Bus
import Synchronization

extension MosquittoBus {
    /// Waits until the client is connected; with a timeout, fails with the last connection error.
    func waitUntilConnected(timeout: Duration?) async throws {
        if let timeout {
            guard try await withTimeout(timeout, { try await self.waitUntilConnected(timeout: nil) }) != nil else {
                let reason = state.withLock { $0.lastError } ?? "no answer"
                throw BusError(
                    .timeout,
                    "could not connect to the MQTT broker at \(configuration.host):\(configuration.port) within \(timeout): \(reason)")
            }
            return
        }
        let waiterID = state.withLock { state -> Int? in
            if state.phase == .connected { return nil }
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        guard let waiterID else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let result: Result<Void, any Error>? = state.withLock { state in
                    switch state.phase {
                    case .connected: return .success(())
                    case .stopped: return .failure(BusError(.closed, "the MQTT client '\(clientID)' was closed"))
                    case .idle:
                        return .failure(BusError(.notConnected, "the MQTT client '\(clientID)' was never connected: call connect() first"))
                    case .connecting:
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.connectWaiters[waiterID] = continuation
                        return nil
                    }
                }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.connectWaiters.removeValue(forKey: waiterID) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Waits for the SUBACK or UNSUBACK of a message id; returns the reason codes.
    func waitForAcknowledgement(mid: Int32) async throws -> [Int32] {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Int32], any Error>) in
            let ready: Result<[Int32], any Error>? = state.withLock { state in
                if let codes = state.acks.removeValue(forKey: mid) {
                    state.awaitingAck.remove(mid)
                    return .success(codes)
                }
                guard state.awaitingAck.contains(mid) else {
                    // A disconnect cleared the bookkeeping: this acknowledgement will never come.
                    return .failure(BusError(.notConnected, "the connection was lost before the broker acknowledged"))
                }
                state.ackWaiters[mid] = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
