import Bus
import BusTesting
import Foundation
import InMemoryBus
import ServiceRuntime
import Testing

@testable import StepCompassClient

@Suite("Nearest markers: request, reply, errors, timeout")
struct NearestRequesterTests {
    static let reply =
        #"{"origin":{"id":"m1","name":"Alpha","latitude":48.1,"longitude":11.5},"nearest":[{"id":"m2","name":"Beta","latitude":48.11,"longitude":11.5,"distanceMiles":0.69},{"id":"m3","name":"Gamma","latitude":48.12,"longitude":11.5,"distanceMiles":1.38},{"id":"m4","name":"Delta","latitude":48.2,"longitude":11.5,"distanceMiles":6.9}]}"#

    /// A stand-in marker service that answers every request with `reply` over MQTT 5 request/response,
    /// and hands the requests it saw to the test.
    private func fakeMarkers(_ pair: InMemoryPair, reply: String, seen: Transcript) async throws -> Task<Void, Never> {
        let requests = try await pair.services.subscribe(to: TopicFilter(pair.topics.markersNearest))
        let services = pair.services
        return Task {
            for await request in requests {
                seen.append(request.text)
                _ = try? await services.respond(to: request, payload: Data(reply.utf8))
            }
        }
    }

    @Test("a query by id gets the three nearest, printed as the dashboard lists them")
    func byID() async throws {
        let pair = InMemoryPair()
        let seen = Transcript()
        let markers = try await fakeMarkers(pair, reply: Self.reply, seen: seen)
        defer { markers.cancel() }
        let result = try await NearestRequester(bus: pair.client, topics: pair.topics)
            .send(try NearestQuery(origin: .marker(id: "m1")))
        #expect(
            try result.lines() == [
                "Nearest to Alpha:",
                "  1. Beta (m2) — 0.69 mi",
                "  2. Gamma (m3) — 1.38 mi",
                "  3. Delta (m4) — 6.90 mi",
            ])
        #expect(String(decoding: result.payload, as: UTF8.self) == Self.reply)
        let request = try #require(seen.all.first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.utf8)) as? [String: Any])
        #expect(body["id"] as? String == "m1")
        #expect(body["count"] as? Int == 3)
        #expect((body["replyTo"] as? String)?.hasPrefix("stepcompass/replies/stepcompass-cli-test/") == true)
        #expect(body["latitude"] == nil)
    }

    @Test("a coordinate query carries latitude, longitude and count; the title names the coordinate")
    func byCoordinate() async throws {
        let pair = InMemoryPair()
        let seen = Transcript()
        let reply =
            #"{"origin":{"id":null,"name":null,"latitude":-33.8,"longitude":151.2},"nearest":[{"id":"s","name":"Opera","latitude":-33.85,"longitude":151.21,"distanceMiles":3.5}]}"#
        let markers = try await fakeMarkers(pair, reply: reply, seen: seen)
        defer { markers.cancel() }
        let result = try await NearestRequester(bus: pair.client, topics: pair.topics)
            .send(try NearestQuery(origin: .coordinate(latitude: -33.8, longitude: 151.2), count: 1))
        #expect(try result.lines() == ["Nearest to 33.80000° S, 151.20000° E:", "  1. Opera (s) — 3.50 mi"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(seen.all[0].utf8)) as? [String: Any])
        #expect(body["latitude"] as? Double == -33.8)
        #expect(body["longitude"] as? Double == 151.2)
        #expect(body["count"] as? Int == 1)
        #expect(body["id"] == nil)
    }

    @Test(
        "an error reply becomes an error with the service's message",
        arguments: [
            ("notFound", "no marker has the id 'zz'"), ("notReady", "the markers are still loading"),
        ])
    func errorReply(code: String, message: String) async throws {
        let pair = InMemoryPair()
        let markers = try await fakeMarkers(pair, reply: #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#, seen: Transcript())
        defer { markers.cancel() }
        let result = try await NearestRequester(bus: pair.client, topics: pair.topics).send(try NearestQuery(origin: .marker(id: "zz")))
        #expect(throws: StepCompassClientError(.errorReply, "the marker service answered: \(message) (\(code))")) {
            _ = try result.lines()
        }
    }

    @Test("no marker service: a clear message after the timeout", .timeLimit(.minutes(2)))
    func timeout() async throws {
        let pair = InMemoryPair()
        await #expect(
            throws: StepCompassClientError(
                .noReply,
                "no reply from the marker service within 0.2 s: is stepcompass-markers running?")
        ) {
            _ = try await NearestRequester(bus: pair.client, topics: pair.topics, timeout: .milliseconds(200))
                .send(try NearestQuery(origin: .marker(id: "m1")))
        }
        // It ends (the test's time limit catches a hang); the message above proves it was the 0.2 s timeout.
    }

    @Test("an MQTT 3.1.1-style reply (to replyTo, correlationId in the payload) is accepted; another request's is not")
    func payloadCorrelation() async throws {
        let pair = InMemoryPair()
        let requests = try await pair.services.subscribe(to: TopicFilter(pair.topics.markersNearest))
        let services = pair.services
        let markers = Task {
            for await request in requests {
                guard let body = try? JSONSerialization.jsonObject(with: request.payload) as? [String: Any],
                    let replyTo = body["replyTo"] as? String, let id = body["correlationId"] as? String
                else { continue }
                let stranger = #"{"origin":null,"nearest":[],"correlationId":"someone-else"}"#
                try? await services.publish(BusMessage(topic: replyTo, text: stranger, qos: .atLeastOnce))
                let ours = #"{"origin":{"id":"m1","name":"Alpha","latitude":1,"longitude":2},"nearest":[],"correlationId":"\#(id)"}"#
                try? await services.publish(BusMessage(topic: replyTo, text: ours, qos: .atLeastOnce))
            }
        }
        defer { markers.cancel() }
        let result = try await NearestRequester(bus: pair.client, topics: pair.topics).send(try NearestQuery(origin: .marker(id: "m1")))
        #expect(try result.lines() == ["Nearest to Alpha:", "  (no other markers)"])
    }

    @Test("bad queries are refused before sending")
    func invalidQueries() {
        #expect(throws: StepCompassClientError.self) { try NearestQuery(origin: .marker(id: "m"), count: 0) }
        #expect(throws: StepCompassClientError.self) { try NearestQuery(origin: .marker(id: "m"), count: 51) }
        #expect(throws: StepCompassClientError.self) { try NearestQuery(origin: .marker(id: "")) }
        #expect(throws: StepCompassClientError.self) { try NearestQuery(origin: .coordinate(latitude: 91, longitude: 0)) }
        #expect(throws: StepCompassClientError.self) { try NearestQuery(origin: .coordinate(latitude: 0, longitude: -181)) }
        #expect(throws: StepCompassClientError.self) { try NearestQuery(origin: .coordinate(latitude: .nan, longitude: 0)) }
        #expect(throws: Never.self) { try NearestQuery(origin: .coordinate(latitude: -90, longitude: 180), count: 50) }
    }

    @Test("a reply that is not JSON is reported as unreadable")
    func unreadable() {
        #expect(throws: StepCompassClientError.self) { try NearestResult(payload: Data("nope".utf8)) }
    }
}
