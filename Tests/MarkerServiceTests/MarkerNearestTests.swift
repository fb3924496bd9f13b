import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import MarkerKit
import MosquittoBus
import ServiceRuntime
import StepCompassTesting
import Testing

@testable import MarkerService

/// Nearest requests through the service's request path on the in-memory bus.
@Suite struct MarkerNearestTests {
    /// Writes `markers` to a temporary file source.
    static func fileSource(_ markers: [Marker], invalid: Int = 0) throws -> String {
        let path = MarkerServiceHarness.temporaryDirectory() + ".geojson"
        try Documents.collection(markers, invalid: invalid).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The contract's answer by brute force: every marker, Haversine, ties by id bytes.
    static func bruteForce(_ markers: [Marker], latitude: Double, longitude: Double, excluding: String?, count: Int)
        -> [(String, Double)]
    {
        markers.filter { $0.id != excluding }
            .map {
                (
                    $0.id,
                    Haversine.distanceMiles(
                        latitude1: latitude, longitude1: longitude, latitude2: $0.latitude, longitude2: $0.longitude)
                )
            }
            .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : MarkerID.precedesInByteOrder($0.0, $1.0) }
            .prefix(count).map { ($0.0, Haversine.roundedMiles($0.1)) }
    }

    static func pairs(_ reply: [String: Any]) -> [(String, Double)] {
        ((reply["nearest"] as? [[String: Any]]) ?? []).map {
            ($0["id"] as? String ?? "?", $0["distanceMiles"] as? Double ?? -1)
        }
    }

    @Test func randomQueriesMatchBruteForceHaversine() async throws {
        let markers = Documents.randomMarkers(count: 400, seed: 42)
        let configuration = MarkerServiceHarness.configuration(source: try Self.fileSource(markers))
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            _ = try #require(await harness.status(on: statuses) { $0.state == "ready" && $0.count == 400 })
            var generator = SeededGenerator(seed: 99)
            for _ in 0..<150 {
                let latitude = Double.random(in: 47.8...48.5, using: &generator)
                let longitude = Double.random(in: 11.1...12.0, using: &generator)
                let count = Int.random(in: 1...50, using: &generator)
                let reply = try await harness.nearest(
                    #"{"latitude": \#(latitude), "longitude": \#(longitude), "count": \#(count)}"#)
                let expected = Self.bruteForce(
                    markers, latitude: latitude, longitude: longitude, excluding: nil, count: count)
                let got = Self.pairs(reply)
                #expect(got.map(\.0) == expected.map(\.0))
                #expect(got.map(\.1) == expected.map(\.1))
                let origin = try #require(reply["origin"] as? [String: Any])
                #expect(origin["id"] is NSNull && origin["name"] is NSNull)
                #expect(abs((origin["latitude"] as? Double ?? 0) - latitude) < 1e-9)
            }
            for _ in 0..<100 {
                let marker = markers[Int.random(in: 0..<markers.count, using: &generator)]
                let reply = try await harness.nearest(#"{"id": "\#(marker.id)"}"#)
                let expected = Self.bruteForce(
                    markers, latitude: marker.latitude, longitude: marker.longitude, excluding: marker.id, count: 3)
                #expect(Self.pairs(reply).map(\.0) == expected.map(\.0))
                let origin = try #require(reply["origin"] as? [String: Any])
                #expect(origin["id"] as? String == marker.id && origin["name"] as? String == marker.name)
            }
        }
    }

    @Test func badRequestsGetErrorRepliesAndReports() async throws {
        let configuration = MarkerServiceHarness.configuration(source: try Self.fileSource(Documents.small))
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            _ = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            let errors = try await harness.client.subscribe(to: try TopicFilter(harness.topics.errors("markers")))
            let cases: [(String, String)] = [
                ("not json", "badRequest"),
                (#"{"count": 3}"#, "badRequest"),
                (#"{"id": "m1", "count": 0}"#, "badRequest"),
                (#"{"id": "m1", "count": 51}"#, "badRequest"),
                (#"{"latitude": 91, "longitude": 0}"#, "badRequest"),
                (#"{"latitude": 48.1}"#, "badRequest"),
                (#"{"id": "m1", "latitude": 48.1, "longitude": 11.5}"#, "badRequest"),
                (#"{"id": ["x"]}"#, "badRequest"),
                (#"{"id": "no-such-marker"}"#, "notFound"),
            ]
            for (payload, code) in cases {
                let reply = try await harness.nearest(payload)
                let error = reply["error"] as? [String: Any]
                #expect(error?["code"] as? String == code, "\(payload)")
                #expect((error?["message"] as? String)?.isEmpty == false)
            }
            let reports = await errors.collect(8, timeout: .seconds(2))
            #expect(reports.count == 8)
            // Still answering afterwards.
            let reply = try await harness.nearest(#"{"id": "m1", "count": 50}"#)
            #expect(Self.pairs(reply).count == Documents.small.count - 1)
        }
    }

    @Test func payloadReplyToAndCorrelationIdForMQTT311Clients() async throws {
        let configuration = MarkerServiceHarness.configuration(source: try Self.fileSource(Documents.small))
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            _ = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            let replies = try await harness.client.subscribe(to: TopicFilter("stepcompass/replies/old-client"))
            try await harness.client.publish(
                BusMessage(
                    topic: harness.topics.markersNearest,
                    text:
                        #"{"id": "m2", "count": 2, "replyTo": "stepcompass/replies/old-client", "correlationId": "abc-1"}"#,
                    qos: .atLeastOnce))
            let reply = try #require(await replies.next(timeout: .seconds(5)))
            let json = try #require(try JSONSerialization.jsonObject(with: reply.payload) as? [String: Any])
            #expect(json["correlationId"] as? String == "abc-1")
            #expect(Self.pairs(json).count == 2)
            try await harness.client.publish(
                BusMessage(
                    topic: harness.topics.markersNearest,
                    text: #"{"id": "nope", "replyTo": "stepcompass/replies/old-client", "correlationId": 17}"#,
                    qos: .atLeastOnce))
            let error = try #require(await replies.next(timeout: .seconds(5)))
            let errorJSON = try #require(try JSONSerialization.jsonObject(with: error.payload) as? [String: Any])
            #expect(errorJSON["correlationId"] as? Int == 17)
            #expect((errorJSON["error"] as? [String: Any])?["code"] as? String == "notFound")
        }
    }

    @Test func nearbyIsPublishedWhenTheDeviceMovesOrTheMarkersChange() async throws {
        let path = try Self.fileSource(Documents.small)
        let configuration = MarkerServiceHarness.configuration(source: path)
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            _ = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            let nearby = try await harness.client.subscribe(
                to: try TopicFilter(harness.topics.device("walker-1", .nearby)))
            func locate(_ latitude: Double, _ longitude: Double) async throws {
                try await harness.client.publish(
                    BusMessage(
                        topic: harness.topics.device("walker-1", .location),
                        text:
                            #"{"latitude": \#(latitude), "longitude": \#(longitude), "timestamp": "2026-11-22T10:15:30.250Z"}"#,
                        qos: .atLeastOnce))
            }
            try await locate(48.1527, 11.5918)
            let first = try #require(await nearby.next(timeout: .seconds(3)))
            let json = try #require(try JSONSerialization.jsonObject(with: first.payload) as? [String: Any])
            #expect(json["timestamp"] as? String == "2026-11-22T10:15:30.250Z")
            let expected = Self.bruteForce(
                Documents.small, latitude: 48.1527, longitude: 11.5918, excluding: nil, count: 3)
            #expect(Self.pairs(json).map(\.0) == expected.map(\.0))
            try await locate(48.15275, 11.5918)  // about 5.6 m: no new list
            #expect(await nearby.next(timeout: .milliseconds(300)) == nil)
            try await locate(48.1537, 11.5918)  // about 111 m: a new list
            #expect(await nearby.next(timeout: .seconds(3)) != nil)
            // The markers change: a fresh list without moving.
            try Documents.collection(Array(Documents.small.prefix(5))).write(
                toFile: path, atomically: true, encoding: .utf8)
            try await harness.refresh()
            let changed = try #require(await nearby.next(timeout: .seconds(3)))
            let changedJSON = try #require(try JSONSerialization.jsonObject(with: changed.payload) as? [String: Any])
            let expectedChanged = Self.bruteForce(
                Array(Documents.small.prefix(5)), latitude: 48.1537, longitude: 11.5918, excluding: nil, count: 3)
            #expect(Self.pairs(changedJSON).map(\.0) == expectedChanged.map(\.0))
            // A bad device id is reported, not answered.
            let errors = try await harness.client.subscribe(to: try TopicFilter(harness.topics.errors("markers")))
            try await harness.client.publish(
                BusMessage(
                    topic: "stepcompass/markers/location", text: #"{"latitude": 1, "longitude": 2}"#, qos: .atLeastOnce)
            )
            #expect(await errors.next(timeout: .seconds(2)) != nil)
        }
    }

    @Test func sampleMarkersDecodeCompletely() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/markers/sample-markers.geojson")
        let report = try MarkerCollectionDecoder().decode(try Data(contentsOf: url))
        #expect(report.rejected.isEmpty)
        #expect(report.accepted.count >= 40)
        let index = MarkerIndex(markers: report.accepted)
        let nearest = try index.nearest(latitude: 48.1527, longitude: 11.5918, count: 3)
        #expect(nearest.allSatisfy { $0.distanceMiles < 1 })
    }
}

/// Request and response over a real mosquitto: MQTT 5 properties and the MQTT 3.1.1 payload fields.
@Suite(.enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct MarkerBrokerTests {
    @Test func nearestOverMQTT5AndMQTT311() async throws {
        let source = try MarkerNearestTests.fileSource(Documents.small)
        try await withBroker { broker in
            let v5 = MosquittoHarness(port: broker.port, protocolVersion: .v5)
            let serviceBus = try await v5.makeClient(id: "markers-\(UUID().uuidString)", cleanStart: true, will: nil)
            let (ready, readyContinuation) = AsyncStream.makeStream(of: Void.self)
            let context = BusServiceContext(
                service: "markers", bus: serviceBus, logger: .init(label: "markers-broker-test")
            ) {
                readyContinuation.yield()
            }
            let service = try MarkerService(
                configuration: MarkerServiceHarness.configuration(source: source), context: context)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await service.run() }
                var iterator = ready.makeAsyncIterator()
                _ = await iterator.next()
                let topics = Topics()
                let client5 = try await v5.makeClient(id: "rr5-\(UUID().uuidString)", cleanStart: true, will: nil)
                // Wait for the markers.
                let statuses = try await client5.subscribe(to: try TopicFilter(topics.markersStatus))
                var state = ""
                while state != "ready", let message = await statuses.next(timeout: .seconds(5)) {
                    state = (try? JSONDecoder().decode(MarkersStatusMessage.self, from: message.payload))?.state ?? ""
                }
                #expect(state == "ready")
                let reply = try await client5.request(
                    BusMessage(topic: topics.markersNearest, text: #"{"id": "m4", "count": 4}"#, qos: .atLeastOnce),
                    replyTopic: "stepcompass/replies/rr5", timeout: .seconds(5))
                let json = try #require(try JSONSerialization.jsonObject(with: reply.payload) as? [String: Any])
                #expect(json["correlationId"] == nil)
                let expected = MarkerNearestTests.bruteForce(
                    Documents.small, latitude: Documents.small[4].latitude, longitude: Documents.small[4].longitude,
                    excluding: "m4", count: 4)
                #expect(MarkerNearestTests.pairs(json).map(\.0) == expected.map(\.0))

                let v311 = MosquittoHarness(port: broker.port, protocolVersion: .v311)
                let client311 = try await v311.makeClient(id: "rr311-\(UUID().uuidString)", cleanStart: true, will: nil)
                let replies = try await client311.subscribe(to: TopicFilter("stepcompass/replies/rr311"))
                try await client311.publish(
                    BusMessage(
                        topic: topics.markersNearest,
                        text:
                            #"{"latitude": 48.15, "longitude": 11.59, "replyTo": "stepcompass/replies/rr311", "correlationId": "c-311"}"#,
                        qos: .atLeastOnce))
                let reply311 = try #require(await replies.next(timeout: .seconds(5)))
                let json311 = try #require(try JSONSerialization.jsonObject(with: reply311.payload) as? [String: Any])
                #expect(json311["correlationId"] as? String == "c-311")
                #expect(MarkerNearestTests.pairs(json311).count == 3)
                await client5.close()
                await client311.close()
                group.cancelAll()
            }
            await serviceBus.close()
        }
    }
}
