import BusTesting
import Foundation
import MarkerKit
import NIOHTTP1
import ServiceRuntime
import StepCompassTesting
import Testing

@testable import MarkerService

/// Permanent failures wait for the refresh interval, transient ones are retried quickly, and a file source has its
/// own size limit: the real local HTTP server, the in-memory bus, and the refresh timer on a manual clock, so each
/// test sees the delay the service arms and moves time on itself.
@Suite struct MarkerRetryTests {
    /// The harness's configuration (an hour's refresh interval, 40-200 ms retries, a 256 KiB body limit).
    static func configuration(source: String, maxFileBytes: Int? = nil) -> MarkerServiceConfiguration {
        var configuration = MarkerServiceHarness.configuration(source: source)
        if let maxFileBytes { configuration.maxFileBytes = maxFileBytes }
        return configuration
    }

    /// The first failure of `source` is `code`, said to be permanent, and armed for the refresh interval; nothing
    /// is fetched a second before it; the second fetch comes when it has passed.
    private func expectRetryAtTheRefreshInterval(code: String, source: String, requests: @Sendable () -> Int) async throws {
        let configuration = Self.configuration(source: source)
        let clock = ManualClock()
        try await MarkerServiceHarness.run(configuration, clock: clock) { harness in
            let statuses = try await harness.statuses()
            let failed = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(failed.error?.code == code)
            let message = failed.error?.message ?? ""
            #expect(message.contains("a permanent failure: the source is fetched again at the refresh interval, in 3600 s"), "\(message)")
            let retryAt = try #require(failed.retryAt.flatMap(Timestamp.parse))
            #expect(abs(retryAt.timeIntervalSinceNow - 3_600) < 60)

            let armed = try #require(await clock.nextSleep())
            #expect(armed == configuration.refreshInterval)
            #expect(requests() == 1)
            clock.advance(by: configuration.refreshInterval - .seconds(1))
            #expect(clock.pendingSleepers == 1, "the retry is not due a second before the refresh interval")
            #expect(requests() == 1)

            clock.advance(by: .seconds(1))
            let again = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(again.error?.code == code)
            #expect(requests() == 2)
            #expect(await clock.nextSleep() == configuration.refreshInterval)
        }
    }

    @Test func bodyOverTheLimitIsRetriedAtTheRefreshInterval() async throws {
        // 300 KiB with its Content-Length, over the harness's 256 KiB --max-body.
        let body = [UInt8](repeating: UInt8(ascii: " "), count: 300 * 1_024) + Array(#"{"type":"FeatureCollection","features":[]}"#.utf8)
        let server = try await TestHTTPServer.start { _, _ in
            .respond(status: .ok, headers: [("Content-Type", "application/geo+json")], body: body)
        }
        defer { Task { await server.shutdown() } }
        try await expectRetryAtTheRefreshInterval(code: "tooLarge", source: server.baseURL + "/big.json") { server.requests.count }
    }

    @Test func notAFeatureCollectionIsRetriedAtTheRefreshInterval() async throws {
        let server = try await TestHTTPServer.start { _, _ in .document(#"{"type": "Feature", "geometry": null}"#) }
        defer { Task { await server.shutdown() } }
        try await expectRetryAtTheRefreshInterval(code: "notAFeatureCollection", source: server.baseURL + "/feature.json") {
            server.requests.count
        }
    }

    @Test func unavailableServerIsRetriedQuickly() async throws {
        let text = Documents.collection(Documents.small)
        let server = try await TestHTTPServer.start { _, index in index == 0 ? .status(.serviceUnavailable) : .document(text) }
        defer { Task { await server.shutdown() } }
        let configuration = Self.configuration(source: server.baseURL + "/markers.json")
        let clock = ManualClock()
        try await MarkerServiceHarness.run(configuration, clock: clock) { harness in
            let statuses = try await harness.statuses()
            let failed = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(failed.error?.code == "httpStatus")
            let message = failed.error?.message ?? ""
            #expect(message.contains("503") && message.contains("a transient failure: retry 1 in 0.0"), "\(message)")
            let retryAt = try #require(failed.retryAt.flatMap(Timestamp.parse))
            #expect(retryAt.timeIntervalSinceNow < 5)

            // The first retry: the base delay with jitter, 20...40 ms, not the refresh interval.
            let armed = try #require(await clock.nextSleep())
            #expect(armed >= configuration.retryBase / 2 && armed <= configuration.retryBase)
            clock.advance(by: armed)
            let ready = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            #expect(ready.count == Documents.small.count)
            #expect(ready.error == nil && ready.retryAt == nil)
            #expect(server.requests.count == 2)
            #expect(await clock.nextSleep() == configuration.refreshInterval)
        }
    }

    @Test func localFileOverTheBodyLimitIsLoaded() async throws {
        // About 450 KB, over the harness's 256 KiB --max-body, which is for HTTP only.
        let markers = Documents.randomMarkers(count: 3_000, seed: 11)
        let path = try MarkerNearestTests.fileSource(markers)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        for source in [path, "file://" + path] {
            let configuration = Self.configuration(source: source)
            #expect(size > configuration.maxBodyBytes)
            try await MarkerServiceHarness.run(configuration, clock: ManualClock()) { harness in
                let statuses = try await harness.statuses()
                let ready = try #require(await harness.status(on: statuses) { $0.state != "loading" })
                #expect(ready.state == "ready", "\(ready.error?.message ?? "")")
                #expect(ready.count == markers.count)
                let reply = try await harness.nearest(#"{"id": "m7", "count": 2}"#)
                #expect((reply["nearest"] as? [Any])?.count == 2)
            }
        }
    }

    @Test func localFileOverItsOwnLimitIsRetriedAtTheRefreshInterval() async throws {
        let path = try MarkerNearestTests.fileSource(Documents.randomMarkers(count: 1_000, seed: 12))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = Self.configuration(source: path, maxFileBytes: 10_000)
        let clock = ManualClock()
        try await MarkerServiceHarness.run(configuration, clock: clock) { harness in
            let statuses = try await harness.statuses()
            let failed = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(failed.error?.code == "tooLarge")
            let message = failed.error?.message ?? ""
            #expect(message.contains("more than the limit of 10000 bytes (--max-file-size)"), "\(message)")
            #expect(message.contains("a permanent failure"), "\(message)")
            #expect(await clock.nextSleep() == configuration.refreshInterval)
        }
    }

    /// A missing file is transient: a volume or a deploy step may still be bringing it. Quick retries, and the
    /// markers load once it is there.
    @Test func missingFileIsRetriedQuicklyAndLoadsOnceItIsThere() async throws {
        let path = MarkerServiceHarness.temporaryDirectory() + ".geojson"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = Self.configuration(source: path)
        let clock = ManualClock()
        try await MarkerServiceHarness.run(configuration, clock: clock) { harness in
            let statuses = try await harness.statuses()
            let failed = try #require(await harness.status(on: statuses) { $0.state == "failed" })
            #expect(failed.error?.code == "fileError")
            let message = failed.error?.message ?? ""
            #expect(message.contains("No such file") && message.contains("a transient failure"), "\(message)")
            let armed = try #require(await clock.nextSleep())
            #expect(armed <= configuration.retryBase)

            try Documents.collection(Documents.small).write(toFile: path, atomically: true, encoding: .utf8)
            clock.advance(by: armed)
            let ready = try #require(await harness.status(on: statuses) { $0.state == "ready" })
            #expect(ready.count == Documents.small.count)
        }
    }

    @Test func permanentAndTransientCodes() {
        for code in ["tooLarge", "invalidJSON", "notAFeatureCollection"] {
            #expect(MarkerServiceError(MarkerServiceError.Code(rawValue: code)!, "").isPermanent, "\(code)")
        }
        for code in ["connectionRefused", "dnsFailure", "connectionFailed", "timeout", "httpStatus", "truncated", "fileError"] {
            #expect(!MarkerServiceError(MarkerServiceError.Code(rawValue: code)!, "").isPermanent, "\(code)")
        }
    }
}

/// Reading a file source: its own limit, checked before reading; bad paths are clear errors.
@Suite struct FileDocumentTests {
    @Test func readsUpToTheLimitAndRefusesOneByteMore() throws {
        let path = MarkerServiceHarness.temporaryDirectory() + ".geojson"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = Documents.collection(Documents.small)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let size = text.utf8.count
        let document = try FileDocument.read(path: path, limit: size)
        #expect(document.count == size)
        #expect(try document.decode().accepted == Documents.small)
        #expect(throws: MarkerServiceError.tooLarge) { try FileDocument.read(path: path, limit: size - 1) }
    }

    @Test func aFolderAndAMissingFileAreFileErrors() {
        #expect(throws: MarkerServiceError.fileError) { try FileDocument.read(path: NSTemporaryDirectory(), limit: 1_000) }
        #expect(throws: MarkerServiceError.fileError) {
            try FileDocument.read(path: MarkerServiceHarness.temporaryDirectory() + "/missing.geojson", limit: 1_000)
        }
    }

    @Test func anEmptyFileIsInvalidJSON() throws {
        let path = MarkerServiceHarness.temporaryDirectory() + ".geojson"
        defer { try? FileManager.default.removeItem(atPath: path) }
        FileManager.default.createFile(atPath: path, contents: Data())
        let document = try FileDocument.read(path: path, limit: 1_000)
        #expect(document.count == 0)
        #expect(throws: MarkerDecodingError.invalidJSON(offset: 0)) { try document.decode() }
    }

    @Test func aLargeDocumentDecodesWhileItsPagesAreGivenBack() throws {
        // 60,000 features, about 9 MB: the decoder hands back pages at least twice on the way.
        let markers = Documents.randomMarkers(count: 60_000, seed: 5)
        let path = try MarkerNearestTests.fileSource(markers, invalid: 3)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let document = try FileDocument.read(path: path, limit: MarkerServiceConfiguration.defaultMaxFileBytes)
        let report = try document.decode()
        #expect(report.accepted == markers)
        #expect(report.rejected.count == 3)
    }
}
