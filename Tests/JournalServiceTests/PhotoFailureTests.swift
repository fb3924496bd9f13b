import Bus
import BusTesting
import Configuration
import Foundation
import NIOHTTP1
import ServiceRuntime
import Synchronization
import Testing

/// Every way the photo services fail, through a real local HTTP server: the walk goes on, the point is published as
/// `pending` with the reason, and once the service answers again the point gets its photo. Through a real mosquitto
/// (one per test) and a real local HTTP server.
@Suite("Photo services failing like real networks, through a real broker", .enabled(if: MosquittoBrokerProcess.shouldRunBrokerTests))
struct PhotoFailureTests {
    /// A failure of the first search (and only the first).
    enum SearchFailure: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case serverError, rateLimited, timeout, truncated, garbage, closed, mediaWikiError

        var testDescription: String { rawValue }

        var reply: TestHTTPServer.Reply {
            switch self {
            case .serverError: .status(.internalServerError)
            case .rateLimited: .respond(status: .tooManyRequests, headers: [("Retry-After", "1")], body: Array("slow down".utf8))
            case .timeout: .hang
            case .truncated: .truncated(declaredLength: 5_000, body: Array(#"{"batchcomplete":"","query":{"pages":{"#.utf8))
            case .garbage: .respond(status: .ok, headers: [("Content-Type", "text/html")], body: Array("<html>Bad gateway</html>".utf8))
            case .closed: .close
            case .mediaWikiError:
                .respond(status: .ok, headers: [], body: Array(#"{"error":{"code":"maxlag","info":"Waiting for a database server"}}"#.utf8))
            }
        }

        /// Words the `error` of the pending point must contain.
        var words: String {
            switch self {
            case .serverError: "HTTP 500"
            case .rateLimited: "HTTP 429"
            case .timeout: "timed out"
            case .truncated: "body"
            case .garbage: "JSON"
            case .closed: "closed"
            case .mediaWikiError: "maxlag"
            }
        }
    }

    /// Walks 120 m so that the first photo point is due.
    private func walk(_ fixture: JournalFixture, _ device: String) async throws {
        try await fixture.permit(device)
        try await fixture.command(device, #"{"action": "start"}"#)
        _ = try #require(await fixture.journal(device) { $0.walk != nil })
        for step in 0...6 { try await fixture.fix(device, north: Double(step) * 20, seconds: Double(step) * 15) }
    }

    @Test("a failed search keeps the point pending with the reason, and it is retried until found", arguments: SearchFailure.allCases)
    func searchFailure(_ failure: SearchFailure) async throws {
        let fixture = try await JournalFixture(.mosquitto)
        let reply = failure.reply
        let served = Mutex<Date?>(nil)  // when the failing answer went out: Retry-After counts from there
        fixture.photos.breaking { request, index in
            guard index == 0 else { return nil }
            served.withLock { $0 = Date() }
            return reply
        }
        try await fixture.start()
        try await walk(fixture, "failing")
        let pending = try #require(await fixture.photo("failing") { $0.status == "pending" })
        #expect(pending.point == 1)
        #expect(pending.error?.localizedCaseInsensitiveContains(failure.words) == true, "\(pending.error ?? "no error")")
        #expect(pending.retryAt != nil)
        let found = try #require(await fixture.photo("failing") { $0.status == "found" })
        #expect(found.point == 1)
        if failure == .rateLimited {
            // Retry-After: 1 is honoured (the backoff alone would retry after 0.05 s).
            let retryAt = try #require(pending.retryAt.flatMap(Timestamp.parse))
            let servedAt = try #require(served.withLock { $0 })
            #expect(retryAt.timeIntervalSince(servedAt) >= 0.9, "retry at \(pending.retryAt ?? "")")
        }
        try await fixture.stop()
    }

    @Test("a refused connection (nothing listening): the route is kept, the point waits, the journal says why")
    func refused() async throws {
        let fixture = try await JournalFixture(.mosquitto)
        let closedPort = try MosquittoBrokerProcess.freePort()
        try await fixture.start(["wikimedia.url": .init(.string("http://127.0.0.1:\(closedPort)/w/api.php"), isSecret: false)])
        try await walk(fixture, "offline")
        let pending = try #require(await fixture.photo("offline") { $0.status == "pending" })
        #expect(pending.error?.contains("refused") == true, "\(pending.error ?? "")")
        let journal = try #require(await fixture.journal("offline") { ($0.walk?.distance ?? 0) >= 119 })
        #expect(journal.walk?.points == 1)
        #expect(journal.walk?.photos == 0)
        try await fixture.stop()
    }

    @Test("an unresolvable host is a pending point with a DNS reason")
    func dnsFailure() async throws {
        let fixture = try await JournalFixture(.mosquitto)
        try await fixture.start(["wikimedia.url": .init(.string("http://no-such-host.invalid/w/api.php"), isSecret: false)])
        try await walk(fixture, "dns")
        let pending = try #require(await fixture.photo("dns") { $0.status == "pending" })
        #expect(pending.error?.contains("resolve") == true, "\(pending.error ?? "")")
        try await fixture.stop()
    }

    @Test("no photo near a point: searched at the radius and once wider, then 'none'")
    func empty() async throws {
        let fixture = try await JournalFixture(.mosquitto)
        fixture.photos.breaking { request, _ in
            request.path.hasPrefix("/w/api.php") ? .respond(status: .ok, headers: [], body: Array(#"{"batchcomplete":""}"#.utf8)) : nil
        }
        try await fixture.start()
        try await walk(fixture, "empty")
        let none = try #require(await fixture.photo("empty") { $0.status != "pending" })
        #expect(none.status == "none")
        #expect(none.photo == nil)
        let radii = fixture.photos.searches.compactMap { URLComponents(string: $0.path)?.queryItems?.first { $0.name == "ggsradius" }?.value }
        #expect(radii == ["300", "1000"])
        try await fixture.stop()
    }

    @Test("an image that 404s, one too large and one that is not an image are skipped for the next result")
    func badImages() async throws {
        let fixture = try await JournalFixture(.mosquitto)
        let bad = Mutex(Set<String>())
        fixture.photos.breaking { request, _ in
            guard request.path.hasPrefix("/images/") else { return nil }
            let seen = bad.withLock { set -> Int in
                set.insert(request.path)
                return set.count
            }
            switch seen {
            case 1: return .status(.notFound)
            case 2: return .respond(status: .ok, headers: [("Content-Type", "image/png")], body: [UInt8](repeating: 0x89, count: 300_000))
            case 3: return .respond(status: .ok, headers: [("Content-Type", "image/png")], body: Array("<html>nope</html>".utf8))
            default: return nil
            }
        }
        try await fixture.start(["max.image.mb": 0.1])
        try await walk(fixture, "images")
        let found = try #require(await fixture.photo("images") { $0.status != "pending" })
        #expect(found.status == "found")
        let images = fixture.photos.requests.filter { $0.path.hasPrefix("/images/") }.map(\.path)
        #expect(Set(images).count == 4)
        #expect(found.photo?.imageUrl?.hasSuffix(".png") == true)
        try await fixture.stop()
    }

    @Test("Flickr with a key: its search arguments, photos with a displayable licence")
    func flickr() async throws {
        let fixture = try await JournalFixture(.mosquitto)
        try await fixture.start(["flickr.key": .init(.string("a-good-key"), isSecret: true)])
        try await walk(fixture, "flickr")
        let found = try #require(await fixture.photo("flickr") { $0.status == "found" })
        #expect(found.photo?.source == "flickr")
        #expect(found.photo?.license == "CC BY 2.0")
        let search = try #require(fixture.photos.searches.first { $0.path.hasPrefix("/services/rest") })
        let items = Dictionary(
            (URLComponents(string: search.path)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(items["method"] == "flickr.photos.search")
        #expect(items["radius_units"] == "km")
        #expect(items["safe_search"] == "1")
        #expect(items["content_type"] == "1")
        #expect(items["geo_context"] == "2")
        #expect(items["has_geo"] == "1")
        #expect(items["nojsoncallback"] == "1")
        #expect(items["extras"]?.contains("url_z") == true)
        try await fixture.stop()
    }

    @Test("an invalid Flickr key: Wikimedia from then on, the walk unaffected")
    func invalidFlickrKey() async throws {
        let fixture = try await JournalFixture(.mosquitto)
        try await fixture.start(["flickr.key": .init(.string("invalid"), isSecret: true)])
        try await walk(fixture, "badkey")
        let found = try #require(await fixture.photo("badkey") { $0.status == "found" })
        #expect(found.photo?.source == "wikimedia")
        for step in 7...11 { try await fixture.fix("badkey", north: Double(step) * 20, seconds: Double(step) * 15) }
        _ = try #require(await fixture.photo("badkey") { $0.point == 2 && $0.status == "found" })
        let flickrCalls = fixture.photos.searches.filter { $0.path.hasPrefix("/services/rest") }
        #expect(flickrCalls.count == 1, "Flickr was asked again after refusing the key")
        try await fixture.stop()
    }

    @Test("Flickr answering 'method not found' (a wrong --flickr-url): that lookup asks Wikimedia, the point gets its photo")
    func flickrMethodNotFound() async throws {
        let fixture = try await JournalFixture(.mosquitto)
        fixture.photos.breaking { request, _ in
            guard request.path.hasPrefix("/services/rest") else { return nil }
            return .respond(
                status: .ok, headers: [], body: Array(#"{"stat":"fail","code":112,"message":"Method \"flickr.photos.search\" not found"}"#.utf8))
        }
        try await fixture.start(["flickr.key": .init(.string("k"), isSecret: true)])
        try await walk(fixture, "method")
        let found = try #require(await fixture.photo("method") { $0.status != "pending" })
        #expect(found.status == "found")
        #expect(found.photo?.source == "wikimedia")
        try await fixture.stop()
    }

    @Test("the Flickr key never appears in what the journal publishes, even when Flickr fails")
    func keyNotPublished() async throws {
        let fixture = try await JournalFixture(.mosquitto)
        fixture.photos.breaking { request, _ in request.path.hasPrefix("/services/rest") ? .status(.badGateway) : nil }
        let everything = try await fixture.probe.subscribe(to: TopicFilter("stepcompass/#"))
        try await fixture.start(["flickr.key": .init(.string("sEcReT-kEy-4711"), isSecret: true)])
        try await walk(fixture, "secret")
        let pending = try #require(await fixture.photo("secret") { $0.status == "pending" })
        #expect(pending.error?.contains("502") == true)
        #expect(fixture.photos.searches.first?.path.contains("sEcReT-kEy-4711") == true)  // it was used
        let seen = await everything.collect(10_000, timeout: .seconds(1))
        #expect(!seen.contains { $0.text.contains("sEcReT-kEy-4711") }, "the key was published")
        try await fixture.stop()
    }

    @Test("Flickr answering JSONP (nojsoncallback ignored) is still read")
    func jsonp() async throws {
        let fixture = try await JournalFixture(.mosquitto)
        let base = fixture.photos.baseURL
        fixture.photos.breaking { request, _ in
            guard request.path.hasPrefix("/services/rest") else { return nil }
            let body =
                #"jsonFlickrApi({"photos":{"page":1,"pages":1,"perpage":50,"total":1,"photo":[{"id":"77","owner":"1@N01","secret":"s","server":"1","title":"P","license":"9","url_z":"\#(base)/images/77.png"}]},"stat":"ok"})"#
            return .respond(status: .ok, headers: [("Content-Type", "text/javascript")], body: Array(body.utf8))
        }
        try await fixture.start(["flickr.key": .init(.string("k"), isSecret: true)])
        try await walk(fixture, "jsonp")
        let found = try #require(await fixture.photo("jsonp") { $0.status == "found" })
        #expect(found.photo?.id == "flickr:77")
        try await fixture.stop()
    }
}
