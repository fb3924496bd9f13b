import AsyncHTTPClient
import BridgeService
import Bus
import Foundation
import InMemoryBus
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import ServiceRuntime
import StepCompassTesting
import Testing

/// A bridge built by `buildBridge` over a bus, on a free HTTP port, for the duration of a test body.
struct BridgeHarness: Sendable {
    let port: Int
    /// The bridge's runtime (``ServiceRuntime/BusRuntime/refreshMetrics()`` before reading its metrics).
    var runtime: BusRuntime? = nil

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func with<T: Sendable>(
        bus: any ConnectableBus, configuration: BridgeConfiguration = BridgeConfiguration(httpPort: 0, reorderDelay: 0.05),
        service: String = "bridge", metrics: Bool = false,
        _ body: @Sendable (BridgeHarness) async throws -> T
    ) async throws -> T {
        let runtime = BusRuntime(
            service: service, topics: Topics(), logger: Logger(label: "test.bridge"), bus: bus,
            metrics: metrics ? ("127.0.0.1", 0) : nil)
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let group = try buildBridge(configuration: configuration, runtime: runtime) { port in portContinuation.yield(port) }
        return try await withRunningGroup(group) {
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw Failure(description: "the bridge did not start") }
            return try await body(BridgeHarness(port: port, runtime: runtime))
        }
    }

    /// POSTs a body to `/sensor-logger` (with `query`, e.g. `device=x&token=y`) and returns the status and text.
    func push(_ body: String, query: String = "", headers: [(String, String)] = []) async throws -> (status: Int, text: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/sensor-logger" + (query.isEmpty ? "" : "?" + query))
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let text = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: text))
    }
}

/// Messages on `filter`, decoded as JSON objects, until `until` holds or `timeout` passes.
func collectJSON(
    _ subscription: BusSubscription, timeout: Duration = .seconds(60), until: ([(topic: String, json: [String: Any])]) -> Bool
) async -> [(topic: String, json: [String: Any])] {
    var found: [(topic: String, json: [String: Any])] = []
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while !until(found), ContinuousClock.now < deadline {
        guard let message = await subscription.next(before: deadline) else { break }
        if let object = (try? JSONSerialization.jsonObject(with: message.payload)) as? [String: Any] {
            found.append((message.topic, object))
        }
    }
    return found
}
