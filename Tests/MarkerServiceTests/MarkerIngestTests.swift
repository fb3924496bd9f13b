import Bus
import BusTesting
import Foundation
import InMemoryBus
import Logging
import MarkerKit
import MosquittoBus
import NIOHTTP1
import ServiceRuntime
import Testing

@testable import MarkerService

/// The source fetched from a real local HTTP server, broken in every way the brief lists.
@Suite struct MarkerIngestTests {
    let document = Documents.collection(Documents.small, invalid: 2)

    @Test func servesADocumentAndCountsRejections() async throws {
        let text = document
        let server = try await TestHTTPServer.start { _, _ in .document(text) }
        defer { Task { await server.shutdown() } }
        let cacheDirectory = MarkerServiceHarness.temporaryDirectory()
        let configuration = MarkerServiceHarness.configuration(
            source: server.baseURL + "/markers.json", cacheDirectory: cacheDirectory)
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            let ready = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            #expect(ready.count == Documents.small.count)
            #expect(ready.rejected == 2)
            #expect(ready.fromCache == false)
            #expect(ready.error == nil && ready.retryAt == nil && ready.updatedAt != nil)
            #expect(ready.source == configuration.source)
            let collection = try #require(harness.broker.retainedMessage(on: harness.topics.markersCollection))
            let decoded = try MarkerCollectionDecoder().decode(collection.payload)
            #expect(decoded.accepted == Documents.small)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: cacheDirectory)
        #expect(files.count == 2)
        #expect(files.contains(MarkerCache.key(for: configuration.source) + ".body"))
    }

    /// Checks a failing source: `failed` with `code`, a `retryAt`, and for a transient failure at least two
    /// retries; a permanent one says so and is due again only at the refresh interval (an hour here:
    /// MarkerRetryTests shows on a manual clock that nothing happens before).
    private func expectFailure(
        code: String, source: String, server: TestHTTPServer?, permanent: Bool = false, minimumRequests: Int = 2
    ) async throws {
        let configuration = MarkerServiceHarness.configuration(source: source)
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            let failed = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(failed.error?.code == code, "\(failed.error?.message ?? "")")
            let retryAt = try #require(failed.retryAt.flatMap(Timestamp.parse))
            #expect(failed.count == 0)
            if permanent {
                #expect(failed.error?.message.contains("a permanent failure") == true, "\(failed.error?.message ?? "")")
                #expect(retryAt.timeIntervalSinceNow > 3_500)
            } else {
                #expect(failed.error?.message.contains("a transient failure") == true, "\(failed.error?.message ?? "")")
                #expect(retryAt.timeIntervalSinceNow < 5)
                let again = await harness.status(on: statuses) { $0.state == "failed" }
                #expect(again != nil, "the service retries after a failure")
            }
            let reply = try await harness.nearest(#"{"latitude": 48.15, "longitude": 11.59}"#)
            let error = reply["error"] as? [String: Any]
            #expect(error?["code"] as? String == "notReady")
        }
        if let server {
            #expect(server.requests.count >= (permanent ? 1 : minimumRequests))
        }
    }

    @Test func refusedConnection() async throws {
        let port = try MosquittoBrokerProcess.freePort()
        try await expectFailure(code: "connectionRefused", source: "http://127.0.0.1:\(port)/markers.json", server: nil)
    }

    @Test func notFound() async throws {
        let server = try await TestHTTPServer.start { _, _ in .status(.notFound) }
        defer { Task { await server.shutdown() } }
        try await expectFailure(code: "httpStatus", source: server.baseURL + "/missing.json", server: server)
    }

    @Test func invalidJSON() async throws {
        let server = try await TestHTTPServer.start { _, _ in
            .document(#"{"type": "FeatureCollection", "features": [}"#)
        }
        defer { Task { await server.shutdown() } }
        try await expectFailure(code: "invalidJSON", source: server.baseURL + "/bad.json", server: server, permanent: true)
    }

    @Test func notAFeatureCollection() async throws {
        let server = try await TestHTTPServer.start { _, _ in .document(#"{"type": "Feature"}"#) }
        defer { Task { await server.shutdown() } }
        try await expectFailure(code: "notAFeatureCollection", source: server.baseURL + "/feature.json", server: server, permanent: true)
    }

    @Test func truncatedBody() async throws {
        let body = Array(document.utf8.prefix(200))
        let server = try await TestHTTPServer.start { _, _ in .truncated(declaredLength: 10_000, body: body) }
        defer { Task { await server.shutdown() } }
        try await expectFailure(code: "truncated", source: server.baseURL + "/cut.json", server: server)
    }

    @Test func endlessBodyOverTheLimit() async throws {
        let server = try await TestHTTPServer.start { _, _ in .endless }
        defer { Task { await server.shutdown() } }
        try await expectFailure(code: "tooLarge", source: server.baseURL + "/endless.json", server: server, permanent: true)
    }

    @Test func redirectLoop() async throws {
        let server = try await TestHTTPServer.start { request, _ in
            .redirect(to: request.path == "/a" ? "/b" : "/a")
        }
        defer { Task { await server.shutdown() } }
        try await expectFailure(code: "redirectLoop", source: server.baseURL + "/a", server: server)
    }

    @Test func gzipBodyIsDecompressed() async throws {
        let compressed = GzipStored.wrap(Array(document.utf8))
        let server = try await TestHTTPServer.start { _, _ in
            .respond(
                status: .ok, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                body: compressed)
        }
        defer { Task { await server.shutdown() } }
        let configuration = MarkerServiceHarness.configuration(source: server.baseURL + "/markers.json.gz")
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            let ready = try #require(await harness.status(on: statuses) { $0.state != "loading" })
            #expect(ready.state == "ready")
            #expect(ready.count == Documents.small.count)
        }
        #expect(server.requests.first?.header("Accept-Encoding")?.contains("gzip") == true)
    }

    @Test func slowServerTimesOutThenRecovers() async throws {
        let text = document
        let server = try await TestHTTPServer.start { _, index in index == 0 ? .hang : .document(text) }
        defer { Task { await server.shutdown() } }
        let configuration = MarkerServiceHarness.configuration(source: server.baseURL + "/slow.json")
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            let failed = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(failed.error?.code == "timeout")
            let ready = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            #expect(ready.count == Documents.small.count)
            #expect(ready.error == nil)
        }
    }

    @Test func serverErrorThenSuccess() async throws {
        let text = document
        let server = try await TestHTTPServer.start { _, index in
            index < 2 ? .status(.internalServerError) : .document(text)
        }
        defer { Task { await server.shutdown() } }
        let configuration = MarkerServiceHarness.configuration(source: server.baseURL + "/flaky.json")
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            let failed = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(failed.error?.code == "httpStatus")
            #expect(failed.error?.message.contains("500") == true)
            let ready = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            #expect(ready.count == Documents.small.count)
        }
        #expect(server.requests.count == 3)
    }

    @Test func lastGoodMarkersStayInServiceAfterAFailure() async throws {
        let text = document
        let server = try await TestHTTPServer.start { _, index in index == 0 ? .document(text) : .status(.badGateway) }
        defer { Task { await server.shutdown() } }
        let configuration = MarkerServiceHarness.configuration(source: server.baseURL + "/markers.json")
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            _ = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            try await harness.refresh()
            let failed = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(failed.count == Documents.small.count)
            #expect(failed.error?.code == "httpStatus")
            #expect(failed.updatedAt != nil)
            let reply = try await harness.nearest(#"{"id": "m0", "count": 2}"#)
            #expect((reply["nearest"] as? [Any])?.count == 2)
        }
    }

    @Test func conditionalRefreshWithETagKeepsTheMarkers() async throws {
        let text = document
        let server = try await TestHTTPServer.start { request, _ in
            if request.header("If-None-Match") == "\"v1\"" {
                return .respond(status: .notModified, headers: [("ETag", "\"v1\"")], body: [])
            }
            return .document(text, headers: [("ETag", "\"v1\""), ("Last-Modified", "Sun, 22 Nov 2026 06:00:00 GMT")])
        }
        defer { Task { await server.shutdown() } }
        let configuration = MarkerServiceHarness.configuration(source: server.baseURL + "/markers.json")
        try await MarkerServiceHarness.run(configuration) { harness in
            let statuses = try await harness.statuses()
            let first = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            try await harness.refresh()
            let second = try #require(
                await harness.status(on: statuses) { $0.state == "ready" && $0.updatedAt != first.updatedAt })
            #expect(second.count == first.count)
            #expect(second.rejected == first.rejected)
        }
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.header("If-None-Match") == nil)
        #expect(requests.last?.header("If-None-Match") == "\"v1\"")
        #expect(requests.last?.header("If-Modified-Since") == "Sun, 22 Nov 2026 06:00:00 GMT")
    }

    @Test func restartWithoutTheSourceAnswersFromTheCache() async throws {
        let text = document
        // The first run gets the document; afterwards the source is down (a closed port could be
        // reused by another test's server running in parallel, so the server stays and fails).
        let server = try await TestHTTPServer.start { _, index in
            index == 0 ? .document(text, headers: [("ETag", "\"v7\"")]) : .status(.serviceUnavailable)
        }
        defer { Task { await server.shutdown() } }
        let cacheDirectory = MarkerServiceHarness.temporaryDirectory()
        let url = server.baseURL + "/markers.json"
        try await MarkerServiceHarness.run(
            MarkerServiceHarness.configuration(source: url, cacheDirectory: cacheDirectory)
        ) { harness in
            let statuses = try await harness.statuses()
            _ = try #require(await harness.status(on: statuses) { $0.state == "ready" })
        }
        // A restart on a fresh broker: the cached markers answer until a fetch succeeds.
        try await MarkerServiceHarness.run(
            MarkerServiceHarness.configuration(source: url, cacheDirectory: cacheDirectory)
        ) { harness in
            let statuses = try await harness.statuses()
            let failed = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(failed.fromCache == true)
            #expect(failed.count == Documents.small.count)
            #expect(failed.rejected == 2)
            #expect(failed.error?.code == "httpStatus")
            let reply = try await harness.nearest(#"{"id": "m3"}"#)
            #expect((reply["nearest"] as? [Any])?.count == 3)
        }
        #expect(server.requests.dropFirst().first?.header("If-None-Match") == "\"v7\"")
    }
}
