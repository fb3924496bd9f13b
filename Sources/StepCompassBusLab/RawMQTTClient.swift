import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal MQTT 3.1.1 client for the compass load's own traffic: it publishes the IMU samples at QoS 0 and
/// reads the headings back at QoS 0, nothing else.
///
/// Through libmosquitto every sample costs the load tool a wake-up byte on its socket pair, a `select`, a read of
/// that byte and one `write` per packet, and with `TCP_NODELAY` one TCP segment per sample for the broker; every
/// heading received costs three `read` calls. On a two-core machine that the broker and the service under test
/// share, the load tool then takes CPU the broker needs. This client writes each tick's samples (already MQTT
/// PUBLISH packets) with one `write` and reads headings 64 KiB at a time, so the broker still reads, routes and
/// forwards every message but the load tool costs little. Its blocking calls run on dedicated threads
/// (``onThread(_:_:)``), never on the cooperative pool.
final class RawMQTTClient: @unchecked Sendable {
    /// The socket; used only by the publisher's own thread (``run(on:_:)``).
    private let descriptor: Int32

    /// Connects (CONNECT with a clean session and keep-alive off, since the client sends nothing between
    /// ticks that the broker would miss) and waits for the CONNACK. Blocking: call on a dedicated thread.
    init(port: Int, clientID: String) throws {
        let fd: Int32
        do {
            fd = try connectLoopback(port: port)
        } catch {
            throw Self.failure(error.call, code: error.code)
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        descriptor = fd
        let id = Array(clientID.utf8)
        var body: [UInt8] = [0, 4] + Array("MQTT".utf8) + [4, 0x02, 0, 0]
        body += [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id
        var packet: [UInt8] = [0x10]
        Self.appendLength(body.count, to: &packet)
        packet += body
        try send(packet)
        var connack = [UInt8](repeating: 0, count: 4)
        var received = 0
        while received < 4 {
            let count = connack.withUnsafeMutableBytes { read(fd, $0.baseAddress! + received, 4 - received) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(fd)
                throw Self.failure("read CONNACK")
            }
            received += count
        }
        guard connack[0] == 0x20, connack[3] == 0 else {
            close(fd)
            throw ValidationError("the broker refused the load publisher '\(clientID)' (CONNACK \(connack))")
        }
    }

    /// Writes all of `bytes`, blocking while the socket's buffer is full (the broker is behind).
    func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw Self.failure("write")
                }
                offset += count
            }
        }
    }

    /// Subscribes to `filter` at QoS 0 and waits for the SUBACK (which the broker sends before any message of
    /// the subscription). Blocking: call on a dedicated thread.
    func subscribe(_ filter: String) throws {
        let bytes = Array(filter.utf8)
        let body: [UInt8] = [0, 1, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes + [0]
        var packet: [UInt8] = [0x82]
        Self.appendLength(body.count, to: &packet)
        try send(packet + body)
        var suback = [UInt8](repeating: 0, count: 5)
        var received = 0
        while received < suback.count {
            let count = suback.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + received, 5 - received) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Self.failure("read SUBACK") }
            received += count
        }
        guard suback[0] == 0x90, suback[4] < 0x80 else {
            throw ValidationError("the broker refused the load tool's subscription to \(filter) (SUBACK \(suback))")
        }
    }

    /// Reads until the connection closes (or ``stopReading()``), handing each PUBLISH's topic and payload to
    /// `handler`. Blocking: call on a dedicated thread.
    func readPublishes(_ handler: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Void) {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            buffer.append(contentsOf: chunk[0..<count])
            var offset = 0
            while offset + 2 <= buffer.count {
                // Fixed header: type and flags, then the remaining length as a variable byte integer.
                var length = 0
                var multiplier = 1
                var index = offset + 1
                var complete = false
                while index < buffer.count && index - offset <= 4 {
                    let byte = buffer[index]
                    length += Int(byte & 0x7F) * multiplier
                    multiplier *= 128
                    index += 1
                    if byte & 0x80 == 0 {
                        complete = true
                        break
                    }
                }
                guard complete, index + length <= buffer.count else { break }
                let type = buffer[offset]
                if type >> 4 == 3, length >= 2 {
                    let topicStart = index + 2
                    let topicEnd = min(index + length, topicStart + (Int(buffer[index]) << 8 | Int(buffer[index + 1])))
                    // A packet id follows the topic only at QoS 1 and 2; the subscription is QoS 0.
                    let payloadStart = min(index + length, topicEnd + ((type >> 1) & 3 > 0 ? 2 : 0))
                    handler(buffer[topicStart..<topicEnd], buffer[payloadStart..<(index + length)])
                }
                offset = index + length
            }
            buffer.removeFirst(offset)
        }
    }

    /// Makes a ``readPublishes(_:)`` on another thread return (its `read` sees the end of the stream).
    func stopReading() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Sends DISCONNECT and closes the socket.
    func disconnect() {
        try? send([0xE0, 0])
        close(descriptor)
    }

    /// Appends an MQTT "remaining length" (a variable byte integer).
    static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        var rest = length
        repeat {
            var byte = UInt8(rest % 128)
            rest /= 128
            if rest > 0 { byte |= 0x80 }
            bytes.append(byte)
        } while rest > 0
    }

    /// Appends a QoS 0 PUBLISH packet.
    static func appendPublish(topic: [UInt8], payload: [UInt8], retain: Bool = false, to packets: inout [UInt8]) {
        packets.append(retain ? 0x31 : 0x30)
        appendLength(2 + topic.count + payload.count, to: &packets)
        packets.append(UInt8(topic.count >> 8))
        packets.append(UInt8(topic.count & 0xFF))
        packets.append(contentsOf: topic)
        packets.append(contentsOf: payload)
    }

    private static func failure(_ call: String, code: Int32 = errno) -> ValidationError {
        ValidationError("load publisher: \(call) failed: \(String(cString: strerror(code)))")
    }

    /// Runs blocking work on a new thread and returns its result, so that no cooperative thread blocks.
    static func onThread<T: Sendable>(_ name: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = name
            thread.start()
        }
    }
}
