import AsyncHTTPClient
import Bus
import DashboardService
import Foundation
import InMemoryBus
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import ServiceRuntime
import StepCompassTesting
import Testing

/// A dashboard running on a free HTTP port over a given bus, and an HTTP client for it.
struct DashboardHarness: Sendable {
    let port: Int
    let topics: Topics

    var base: String { "http://127.0.0.1:\(port)" }

    /// Runs the dashboard for the duration of `body`.
    static func with<T: Sendable>(
        bus: any ConnectableBus, topics: Topics = Topics(),
        configuration: DashboardConfiguration = DashboardConfiguration(httpPort: 0, requestTimeout: 0.5), service: String = "dashboard",
        _ body: @Sendable (DashboardHarness) async throws -> T
    ) async throws -> T {
        let runtime = BusRuntime(
            service: service, topics: topics, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            bus: bus)
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let group = try buildDashboard(configuration: configuration, runtime: runtime) { port in portContinuation.yield(port) }
        return try await withRunningGroup(group) {
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw HarnessError("the dashboard did not start") }
            return try await body(DashboardHarness(port: port, topics: topics))
        }
    }

    /// A GET, the whole body as text.
    func get(_ path: String) async throws -> (status: Int, contentType: String?, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + path), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 8 * 1024 * 1024)
        return (Int(response.status.code), response.headers.first(name: "content-type"), String(buffer: body))
    }

    /// A GET with the answer's headers, the body as bytes.
    func getWithHeaders(_ path: String) async throws -> (status: Int, headers: HTTPHeaders, body: [UInt8]) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + path), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 8 * 1024 * 1024)
        return (Int(response.status.code), response.headers, Array(buffer: body))
    }

    /// A POST of a JSON body, the answer's status and JSON object.
    func post(_ path: String, _ json: String) async throws -> (status: Int, body: [String: Any]) {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: json))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1024 * 1024)
        let object = try JSONSerialization.jsonObject(with: Data(String(buffer: body).utf8)) as? [String: Any]
        return (Int(response.status.code), object ?? [:])
    }

    /// A request with the given method, headers and body (no Content-Type unless `headers` holds one), the
    /// answer's status and JSON object.
    func send(
        _ path: String, method: HTTPMethod = .POST, headers: [(String, String)], body: String
    ) async throws -> (status: Int, body: [String: Any]) {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let answer = try await response.body.collect(upTo: 1024 * 1024)
        let object = try? JSONSerialization.jsonObject(with: Data(String(buffer: answer).utf8)) as? [String: Any]
        return (Int(response.status.code), object ?? [:])
    }

    /// The JSON of a GET.
    func getJSON(_ path: String) async throws -> (status: Int, body: [String: Any]) {
        let (status, _, text) = try await get(path)
        return (status, (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:])
    }

    /// Opens the event stream and reads events until `until` accepts one or `timeout` passes.
    /// - Returns: Every event read, in order, as (name, JSON object or array).
    func events(
        _ query: String = "", timeout: Duration = .seconds(5),
        while publishing: @escaping @Sendable () async throws -> Void = {},
        until done: @escaping @Sendable ([ServerEvent]) -> Bool
    ) async throws -> [ServerEvent] {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/events" + query), timeout: .seconds(30))
        #expect(response.headers.first(name: "content-type") == "text/event-stream")
        return try await withThrowingTaskGroup(of: [ServerEvent]?.self) { group in
            group.addTask {
                var parser = ServerEventParser()
                var seen: [ServerEvent] = []
                var published = false
                for try await buffer in response.body {
                    seen += parser.feed(String(buffer: buffer))
                    if !published && seen.contains(where: { $0.name == "services" }) {
                        // The first snapshot is complete: now change something.
                        published = true
                        try await publishing()
                    }
                    if done(seen) { return seen }
                }
                return seen
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else { throw HarnessError("the expected events did not arrive within \(timeout)") }
            return first
        }
    }
}

/// One Server-Sent Event as the test reads it.
struct ServerEvent: Sendable {
    let name: String
    let data: String

    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:]
    }
}

/// Splits a text/event-stream into events (a blank line ends one; comments are skipped).
struct ServerEventParser {
    private var pending = ""

    mutating func feed(_ text: String) -> [ServerEvent] {
        pending += text
        var events: [ServerEvent] = []
        while let end = pending.range(of: "\n\n") {
            let block = pending[..<end.lowerBound]
            pending.removeSubrange(..<end.upperBound)
            var name = "message"
            var data: [Substring] = []
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data.append(line.dropFirst(6)) }
            }
            if !data.isEmpty { events.append(ServerEvent(name: name, data: data.joined(separator: "\n"))) }
        }
        return events
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension MessageBus {
    /// Publishes a JSON text.
    func send(_ topic: String, _ json: String, retain: Bool = false, qos: QoS = .atLeastOnce) async throws {
        try await publish(BusMessage(topic: topic, payload: Data(json.utf8), qos: qos, retain: retain))
    }
}
