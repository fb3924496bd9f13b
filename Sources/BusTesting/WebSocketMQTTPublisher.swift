public import Foundation

/// A minimal MQTT 3.1.1 publisher over WebSockets, as phone apps such as Sensor Logger connect to a broker: an
/// HTTP upgrade with the `mqtt` subprotocol, then CONNECT and PUBLISH packets (QoS 0, or QoS 1 waiting for the
/// PUBACK) in masked binary frames.
///
/// For tests of a broker's `protocol websockets` listener; libmosquitto's client has no WebSockets transport.
public final class WebSocketMQTTPublisher: @unchecked Sendable {
    /// What went wrong: the message says which step.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        /// The CONNACK return code when the broker refused the MQTT connection (4: bad user name or password,
        /// 5: not authorised), nil for any other failure.
        public internal(set) var refusal: UInt8? = nil
    }

    private let fd: Int32

    /// Connects to `127.0.0.1:port`, upgrades to WebSockets and sends MQTT CONNECT, waiting for the CONNACK.
    /// - Parameters:
    ///   - port: The broker's WebSockets listener.
    ///   - clientID: The MQTT client id.
    ///   - username: An optional user name.
    ///   - password: An optional password.
    public init(port: Int, clientID: String, username: String? = nil, password: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            throw Failure(description: "cannot connect to 127.0.0.1:\(port)")
        }
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let request =
            "GET /mqtt HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n"
        try send(Array(request.utf8))
        let response = try readHTTPHeader()
        guard response.hasPrefix("HTTP/1.1 101") else {
            close(fd)
            throw Failure(description: "the broker refused the WebSocket upgrade: \(response.prefix(80))")
        }
        // CONNECT, MQTT 3.1.1, clean session, keep-alive 60 s.
        var variable: [UInt8] = [0, 4] + Array("MQTT".utf8) + [4]
        var flags: UInt8 = 0x02
        if username != nil { flags |= 0x80 }
        if password != nil { flags |= 0x40 }
        variable += [flags, 0, 60]
        var payload = Self.string(clientID)
        if let username { payload += Self.string(username) }
        if let password { payload += Self.string(password) }
        try sendFrame(Self.packet(0x10, variable + payload))
        let connack = try readFrame()
        guard connack.count >= 4, connack[0] == 0x20, connack[3] == 0 else {
            close(fd)
            throw Failure(
                description: "the broker did not accept the MQTT connection: \(connack.prefix(4).map { String($0) })",
                refusal: connack.count >= 4 && connack[0] == 0x20 ? connack[3] : nil)
        }
    }

    deinit {
        close(fd)
    }

    /// Publishes `payload` to `topic` at QoS 0.
    public func publish(topic: String, payload: [UInt8]) throws {
        try sendFrame(Self.packet(0x30, Self.string(topic) + payload))
    }

    /// Publishes `payload` to `topic` at QoS 1 and waits for the broker's PUBACK, so the broker has handled it
    /// (delivered it, or dropped it when the ACL refuses it: MQTT 3.1.1 acknowledges either way) on return.
    public func publishAcknowledged(topic: String, payload: [UInt8]) throws {
        packetID = packetID == UInt16.max ? 1 : packetID + 1
        try sendFrame(Self.packet(0x32, Self.string(topic) + [UInt8(packetID >> 8), UInt8(packetID & 0xFF)] + payload))
        let puback = try readFrame()
        guard puback.count >= 4, puback[0] == 0x40, UInt16(puback[2]) << 8 | UInt16(puback[3]) == packetID else {
            throw Failure(description: "expected the PUBACK of packet \(packetID), got \(puback.prefix(4).map { String($0) })")
        }
    }

    private var packetID: UInt16 = 0

    /// Sends DISCONNECT and closes the connection.
    public func disconnect() {
        try? sendFrame([0xE0, 0])
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private static func string(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    private static func packet(_ header: UInt8, _ body: [UInt8]) -> [UInt8] {
        var length = body.count
        var encoded: [UInt8] = []
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            encoded.append(byte)
        } while length > 0
        return [header] + encoded + body
    }

    private func sendFrame(_ payload: [UInt8]) throws {
        var frame: [UInt8] = [0x82]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try send(frame)
    }

    private func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send failed (errno \(errno))") }
            offset += sent
        }
    }

    private func readByte() throws -> UInt8 {
        var byte: UInt8 = 0
        guard recv(fd, &byte, 1, 0) == 1 else { throw Failure(description: "the connection closed or timed out") }
        return byte
    }

    private func readHTTPHeader() throws -> String {
        var bytes: [UInt8] = []
        while !bytes.suffix(4).elementsEqual([13, 10, 13, 10]) {
            bytes.append(try readByte())
            if bytes.count > 8_192 { throw Failure(description: "the upgrade response is too long") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads one (unmasked) server frame's payload.
    private func readFrame() throws -> [UInt8] {
        _ = try readByte()
        var length = Int(try readByte() & 0x7F)
        if length == 126 {
            length = Int(try readByte()) << 8 | Int(try readByte())
        } else if length == 127 {
            length = 0
            for _ in 0..<8 { length = length << 8 | Int(try readByte()) }
        }
        return try (0..<length).map { _ in try readByte() }
    }
}
