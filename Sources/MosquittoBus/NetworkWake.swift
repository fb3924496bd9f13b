import CMosquitto

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
final class NetworkWake: Sendable {
    private let reader: Int32
    private let writer: Int32

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

    /// Wakes the thread (a full pipe already will).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    /// Empties the pipe after a wake.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while bytes.withUnsafeMutableBytes({ read(reader, $0.baseAddress, 256) }) > 0 {}
    }
}
