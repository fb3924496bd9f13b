import AsyncHTTPClient
import Bus
import BusTesting
import DashboardService
import Foundation
import InMemoryBus
import NIOCore
import NIOHTTP1
import Testing

@Suite("CrossSiteGuard: the real dashboard refuses cross-site and non-JSON commands and publishes nothing for them")
struct CrossSiteGuardTests {
    let broker = InMemoryBroker()

    private func bus(_ name: String) -> InMemoryBus {
        let bus = InMemoryBus(broker: broker, clientID: "\(name)-\(UUID().uuidString)", cleanStart: true)
        bus.connect()
        return bus
    }

    private static let json = ("Content-Type", "application/json")

    /// Sends the refused requests, then one accepted command from the page's own origin, and checks that the accepted
    /// command is the first (and only) one on the bus: the bus keeps one publisher's order, so a refused request that
    /// had been published would have arrived before it.
    private func expectRefused(
        _ refused: [(headers: [(String, String)], status: Int, code: String)], path: String = "/api/devices/walker-1/reset-position"
    ) async throws {
        let listener = bus("listener")
        let commands = try await listener.subscribe(to: TopicFilter("stepcompass/+/cmd/#"))
        try await DashboardHarness.with(bus: bus("dashboard")) { dashboard in
            for request in refused {
                let answer = try await dashboard.send(path, headers: request.headers, body: "{}")
                #expect(answer.status == request.status)
                let error = try #require(answer.body["error"] as? [String: Any])
                #expect(error["code"] as? String == request.code)
                #expect((error["message"] as? String)?.isEmpty == false)
            }
            let ownPage = [("Origin", dashboard.base), ("Sec-Fetch-Site", "same-origin"), Self.json]
            let accepted = try await dashboard.send(
                "/api/devices/walker-1/bearing-lock", headers: ownPage, body: #"{"action": "lock", "bearing": 90}"#)
            #expect(accepted.status == 202)
            #expect(accepted.body["published"] as? String == "stepcompass/walker-1/cmd/bearing-lock")
        }
        let first = try #require(await commands.next(timeout: .seconds(3)))
        #expect(first.topic == "stepcompass/walker-1/cmd/bearing-lock")
        #expect(first.text == #"{"action":"lock","bearing":90}"#)
    }

    @Test("A POST with another site's Origin gets 403 and publishes nothing")
    func foreignOrigin() async throws {
        try await expectRefused([
            (headers: [("Origin", "http://evil.example"), Self.json], status: 403, code: "forbidden"),
            (headers: [("Origin", "null"), Self.json], status: 403, code: "forbidden"),
        ])
    }

    @Test("A POST the browser marks Sec-Fetch-Site: cross-site or same-site gets 403 and publishes nothing")
    func crossSiteFetch() async throws {
        try await expectRefused([
            (headers: [("Sec-Fetch-Site", "cross-site"), Self.json], status: 403, code: "forbidden"),
            (headers: [("Sec-Fetch-Site", "same-site"), Self.json], status: 403, code: "forbidden"),
        ])
    }

    @Test("A form's body (what a cross-site HTML form sends) or no content type gets 415 and publishes nothing")
    func formBody() async throws {
        try await expectRefused([
            (headers: [("Content-Type", "application/x-www-form-urlencoded")], status: 415, code: "unsupportedMediaType"),
            (headers: [("Content-Type", "text/plain")], status: 415, code: "unsupportedMediaType"),
            (headers: [], status: 415, code: "unsupportedMediaType"),
        ])
    }

    @Test("The markers' refresh is guarded too")
    func markersRefresh() async throws {
        let listener = bus("listener")
        let messages = try await listener.subscribe(to: TopicFilter("stepcompass/#"))
        let json = Self.json
        try await DashboardHarness.with(bus: bus("dashboard")) { dashboard in
            let refused = try await dashboard.send(
                "/api/markers/refresh", headers: [("Origin", "http://evil.example"), json], body: "{}")
            #expect(refused.status == 403)
            let ownPage = [("Origin", dashboard.base), json]
            #expect(try await dashboard.send("/api/devices/walker-1/calibrate", headers: ownPage, body: #"{"action": "reset"}"#).status == 202)
            #expect(try await dashboard.send("/api/markers/refresh", headers: ownPage, body: "{}").status == 202)
        }
        // In the order sent: the accepted calibration, then the accepted refresh, and no refresh before them.
        var commands: [String] = []
        while commands.last != "stepcompass/markers/cmd/refresh", let message = await messages.next(timeout: .seconds(3)) {
            if message.topic.contains("/cmd/") { commands.append(message.topic) }
        }
        #expect(commands == ["stepcompass/walker-1/cmd/calibrate", "stepcompass/markers/cmd/refresh"])
    }

    @Test("A script's JSON command without Origin or Sec-Fetch-Site, with a charset, is accepted and published")
    func script() async throws {
        let listener = bus("listener")
        let commands = try await listener.subscribe(to: TopicFilter("stepcompass/+/cmd/#"))
        try await DashboardHarness.with(bus: bus("dashboard")) { dashboard in
            let answer = try await dashboard.send(
                "/api/devices/walker-1/reset-position", headers: [("Content-Type", "application/json; charset=utf-8")], body: "{}")
            #expect(answer.status == 202)
        }
        let first = try #require(await commands.next(timeout: .seconds(3)))
        #expect(first.topic == "stepcompass/walker-1/cmd/reset-position")
    }

    @Test("GETs, the event stream included, are not affected by a foreign Origin or Sec-Fetch-Site")
    func reads() async throws {
        try await DashboardHarness.with(bus: bus("dashboard")) { dashboard in
            let state = try await dashboard.send(
                "/api/state", method: .GET, headers: [("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")], body: "")
            #expect(state.status == 200)
            #expect(state.body["devices"] != nil)
            var request = HTTPClientRequest(url: dashboard.base + "/events")
            request.headers.add(name: "Origin", value: "http://evil.example")
            request.headers.add(name: "Sec-Fetch-Site", value: "cross-site")
            let stream = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            #expect(stream.status.code == 200)
            #expect(stream.headers.first(name: "content-type") == "text/event-stream")
            var parser = ServerEventParser()
            for try await buffer in stream.body where parser.feed(String(buffer: buffer)).contains(where: { $0.name == "devices" }) {
                break
            }
        }
    }
}
