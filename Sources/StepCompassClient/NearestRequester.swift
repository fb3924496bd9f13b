public import Bus
public import DashboardKit
public import Foundation
public import ServiceRuntime

/// Asks the marker service for the markers nearest a marker or a coordinate and waits for its reply.
///
/// The request carries an MQTT 5 response topic and correlation data (so `mosquitto_rr` and the bus's
/// `respond` work), and also the contract's `replyTo`/`correlationId` payload fields, so the same
/// client works over MQTT 3.1.1. The reply topic is the client's own level under `replies/`.
public struct NearestRequester: Sendable {
    public let bus: any MessageBus
    public let topics: Topics
    /// How long to wait for the reply.
    public var timeout: Duration

    /// Creates a requester over a connected bus.
    public init(bus: any MessageBus, topics: Topics, timeout: Duration = .seconds(5)) {
        self.bus = bus
        self.topics = topics
        self.timeout = timeout
    }

    /// Sends the query and returns the reply (which may be an error reply: see ``NearestResult/lines()``).
    /// - Throws: ``StepCompassClientError/Code/noReply`` when no reply comes within ``timeout``,
    ///   ``StepCompassClientError/Code/unreadableReply`` when the reply is not the contract's JSON.
    public func send(_ query: NearestQuery) async throws -> NearestResult {
        let reply = try await ServiceRequest(bus: bus, topics: topics, timeout: timeout)
            .send(to: topics.markersNearest, replyLevel: "nearest", from: .markers) { query.payload(replyTo: $0, correlationId: $1) }
        return try NearestResult(payload: reply)
    }
}

/// The marker service's reply, raw and decoded.
public struct NearestResult: Sendable, Hashable {
    /// The reply's bytes, as received (`--json` prints them).
    public let payload: Data
    public let reply: NearestReply

    /// Decodes a reply payload.
    /// - Throws: ``StepCompassClientError/Code/unreadableReply``.
    public init(payload: Data) throws(StepCompassClientError) {
        self.payload = payload
        do {
            reply = try JSONDecoder().decode(NearestReply.self, from: payload)
        } catch {
            throw StepCompassClientError(
                .unreadableReply,
                "the marker service's reply is not a nearest-markers reply: \(String(decoding: payload.prefix(200), as: UTF8.self))")
        }
    }

    /// The reply as the dashboard lists it: `Nearest to NAME:` then `  1. Name (id) — 1.23 mi`.
    /// - Throws: ``StepCompassClientError/Code/errorReply`` with the service's message for an error reply.
    public func lines() throws(StepCompassClientError) -> [String] {
        let view = NearestView(reply: reply)
        if let message = view.errorText {
            throw StepCompassClientError(.errorReply, "the marker service answered: \(message) (\(view.errorCode ?? "error"))")
        }
        var lines = ["\(view.title):"]
        for (index, item) in view.items.enumerated() {
            lines.append("  \(index + 1). \(item.name) (\(item.id)) — \(item.distanceText)")
        }
        if view.items.isEmpty { lines.append("  (no other markers)") }
        return lines
    }
}
