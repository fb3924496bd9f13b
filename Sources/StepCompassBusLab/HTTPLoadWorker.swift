import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One thread's share of the bridge load's phones: each phone on its own keep-alive HTTP/1.1 connection, one
/// request at a time, due on a fixed schedule.
///
/// Raw sockets and `poll` rather than an HTTP client library, for the same reason as ``RawMQTTClient``: the load
/// tool shares two cores with the bridge and the broker. A request that falls due while the phone's previous one
/// is still unanswered is sent as soon as that answer arrives, and its latency counts from when it was due
/// (so a bridge that falls behind shows as growing latency, not as a slower offered rate).
final class HTTPLoadWorker: @unchecked Sendable {
    struct Result: Sendable {
        var sent = 0
        var ok = 0
        var samplesAccepted = 0
        /// Failures by reason (`HTTP 503`, `connection closed`, `no answer`).
        var failures: [String: Int] = [:]
        var firstFailureBody: String?
        /// (second after the first push was due that the request was due in, latency from due to the full answer).
        var latencies: [(second: Int, latency: Double)] = []
        /// Worst delay of a send behind its due time.
        var worstSendDelay = 0.0
        var bytesSent = 0
    }

    private struct Phone {
        var index: Int
        var descriptor: Int32 = -1
        var next = 0
        var outstanding: Double?
        var buffer: [UInt8] = []
    }

    private let port: Int
    private let start: Double
    private let period: Double
    private let requests: Int
    private let bodies: SensorLoggerLoadBodies
    private let phoneCount: Int
    private var phones: [Phone]

    /// - Parameters:
    ///   - phones: The phone indices of this worker.
    ///   - phoneCount: All phones (their schedule offsets spread over a period).
    ///   - start: Unix seconds of the run's start.
    ///   - period: Seconds between a phone's requests.
    ///   - requests: Requests per phone.
    init(port: Int, phones: [Int], phoneCount: Int, start: Double, period: Double, requests: Int, bodies: SensorLoggerLoadBodies) {
        self.port = port
        self.start = start
        self.period = period
        self.requests = requests
        self.bodies = bodies
        self.phoneCount = phoneCount
        self.phones = phones.map { Phone(index: $0) }
    }

    /// The offset of phone `index`'s schedule within a period: the phones' requests spread evenly.
    func offset(phone index: Int) -> Double { period * Double(index) / Double(phoneCount) }

    /// When request `request` of phone `index` is due: once its last sample has been "recorded".
    func due(phone index: Int, request: Int) -> Double { start + offset(phone: index) + Double(request + 1) * period }

    /// Opens the connections. Blocking: call on a dedicated thread.
    func connect() throws {
        for index in phones.indices { phones[index].descriptor = try Self.open(port: port) }
    }

    /// Runs the schedule until every request is answered or `deadline` (Unix seconds). Blocking.
    func run(deadline: Double) -> Result {
        var result = Result()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var polls = [pollfd]()
        var polled = [Int]()
        while true {
            var now = Date().timeIntervalSince1970
            var nextDue = Double.infinity
            var busy = false
            for slot in phones.indices {
                let phone = phones[slot]
                if phone.outstanding != nil {
                    busy = true
                    continue
                }
                guard phone.next < requests else { continue }
                busy = true
                let due = due(phone: phone.index, request: phone.next)
                guard due <= now else {
                    nextDue = min(nextDue, due)
                    continue
                }
                send(slot: slot, due: due, now: now, result: &result)
                now = Date().timeIntervalSince1970
            }
            guard busy, now < deadline else { break }
            polls.removeAll(keepingCapacity: true)
            polled.removeAll(keepingCapacity: true)
            for slot in phones.indices where phones[slot].outstanding != nil {
                polls.append(pollfd(fd: phones[slot].descriptor, events: Int16(POLLIN), revents: 0))
                polled.append(slot)
            }
            let wait = max(0, min(100, Int32(((min(nextDue, deadline) - now) * 1_000).rounded(.up))))
            let ready = poll(&polls, nfds_t(polls.count), wait)
            guard ready > 0 else { continue }
            for (position, entry) in polls.enumerated() where entry.revents != 0 {
                let slot = polled[position]
                let count = chunk.withUnsafeMutableBytes { read(phones[slot].descriptor, $0.baseAddress!, $0.count) }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if count <= 0 {
                    fail(slot: slot, reason: "connection closed", result: &result)
                    continue
                }
                phones[slot].buffer.append(contentsOf: chunk[0..<count])
                guard let (status, body, length) = Self.parseResponse(phones[slot].buffer) else { continue }
                phones[slot].buffer.removeFirst(length)
                let due = phones[slot].outstanding ?? now
                phones[slot].outstanding = nil
                phones[slot].next += 1
                let answered = Date().timeIntervalSince1970
                if status == 200 {
                    result.ok += 1
                    result.samplesAccepted += bodies.batch
                    result.latencies.append((Int((due - start - period).rounded(.down)), answered - due))
                } else {
                    result.failures["HTTP \(status)", default: 0] += 1
                    if result.firstFailureBody == nil { result.firstFailureBody = String(decoding: body.prefix(300), as: UTF8.self) }
                }
            }
        }
        for slot in phones.indices where phones[slot].outstanding != nil {
            result.failures["no answer", default: 0] += 1
        }
        return result
    }

    /// Closes the connections.
    func close() {
        for phone in phones where phone.descriptor >= 0 { Glibc.close(phone.descriptor) }
    }

    private func send(slot: Int, due: Double, now: Double, result: inout Result) {
        let phone = phones[slot]
        let bytes = bodies.request(
            phone: phone.index, request: phone.next, offsetNanoseconds: Int64((offset(phone: phone.index) * 1e9).rounded()))
        result.worstSendDelay = max(result.worstSendDelay, now - due)
        if phones[slot].descriptor < 0 { phones[slot].descriptor = (try? Self.open(port: port)) ?? -1 }
        guard phones[slot].descriptor >= 0, Self.write(phones[slot].descriptor, bytes) else {
            result.failures["cannot send", default: 0] += 1
            if phones[slot].descriptor >= 0 { Glibc.close(phones[slot].descriptor) }
            phones[slot].descriptor = -1
            phones[slot].next += 1
            return
        }
        result.sent += 1
        result.bytesSent += bytes.count
        phones[slot].outstanding = due
    }

    private func fail(slot: Int, reason: String, result: inout Result) {
        result.failures[reason, default: 0] += 1
        Glibc.close(phones[slot].descriptor)
        phones[slot].descriptor = -1
        phones[slot].outstanding = nil
        phones[slot].buffer = []
        phones[slot].next += 1
    }

    /// A complete response at the start of `buffer`: status, body, and the bytes it took; nil while incomplete.
    static func parseResponse(_ buffer: [UInt8]) -> (status: Int, body: ArraySlice<UInt8>, length: Int)? {
        guard let end = buffer.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first else { return nil }
        let parts = statusLine.split(separator: " ")
        let status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        var contentLength = 0
        for line in lines.dropFirst() {
            let pair = line.split(separator: ":", maxSplits: 1)
            if pair.count == 2, pair[0].lowercased() == "content-length" {
                contentLength = Int(pair[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        let total = end.upperBound + contentLength
        guard buffer.count >= total else { return nil }
        return (status, buffer[end.upperBound..<total], total)
    }

    private static func open(port: Int) throws -> Int32 {
        let fd: Int32
        do {
            fd = try connectLoopback(port: port)
        } catch  where error.call == "socket" {
            throw ValidationError("bridge load: socket failed: \(error.reason)")
        } catch {
            throw ValidationError("bridge load: connect to 127.0.0.1:\(port) failed: \(error.reason)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var buffer: Int32 = 1 << 20
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
    }
}
