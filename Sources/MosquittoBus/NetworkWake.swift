import CMosquitto
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pipe that wakes the network thread's `poll` when another thread has queued a packet (a publish, a subscribe).
///
/// libmosquitto wakes its own `select` through a socket pair for the same reason, but `mosquitto_loop` cannot be used
/// (see ``MosquittoBus/loopOnce(timeout:)``) and the socket pair is not part of its API.
///
/// The pipe is written only while the network thread waits (``willWait()`` to ``didWait()``), and once per wait: a
/// busy network thread costs a publisher no system call. No wake is lost: the thread says it will wait before it
/// looks for queued packets, and a publisher queues its packet before it looks whether the thread waits, so either
/// the thread sees the packet (and polls for writing) or the publisher sees the thread waiting (and writes).
final class NetworkWake: Sendable {
    private let reader: Int32
    private let writer: Int32
    private let waiting = Atomic<Bool>(false)

    init() throws(MosquittoError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw MosquittoError(code: Int32(MOSQ_ERR_ERRNO.rawValue), function: "pipe")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        reader = descriptors[0]
        writer = descriptors[1]
    }

    deinit {
        close(reader)
        close(writer)
    }

    /// What `poll` watches.
    var descriptor: Int32 { reader }

    /// The network thread is about to look for queued packets and wait: a signal from now on writes the pipe.
    func willWait() { waiting.store(true, ordering: .sequentiallyConsistent) }

    /// The network thread is back from its wait.
    func didWait() { waiting.store(false, ordering: .sequentiallyConsistent) }

    /// Wakes the thread if it waits (a full pipe already will).
    func signal() {
        guard waiting.exchange(false, ordering: .sequentiallyConsistent) else { return }
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    /// Empties the pipe after a wake.
    func drain() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { buffer in
            while read(reader, buffer.baseAddress, 256) > 0 {}
        }
    }
}
