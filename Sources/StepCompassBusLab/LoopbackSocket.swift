import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A socket call that failed while connecting to the loopback address, with its `errno`.
struct LoopbackConnectError: Error {
    /// `socket` or `connect`.
    var call: String
    var code: Int32

    /// `strerror` of ``code``.
    var reason: String { String(cString: strerror(code)) }
}

/// A blocking TCP socket connected to 127.0.0.1:`port` (the load tools' raw clients). Blocking: call on a dedicated
/// thread.
/// - Throws: the failed call and its `errno` (the socket is closed).
func connectLoopback(port: Int) throws(LoopbackConnectError) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoopbackConnectError(call: "socket", code: errno) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        let code = errno
        close(fd)
        throw LoopbackConnectError(call: "connect", code: code)
    }
    return fd
}
