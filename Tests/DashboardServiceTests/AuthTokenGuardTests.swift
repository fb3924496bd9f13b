import AsyncHTTPClient
import Bus
import BusTesting
import Configuration
import DashboardService
import Foundation
import InMemoryBus
import Logging
import NIOCore
import NIOHTTP1
import ServiceRuntime
import Testing

@Suite("AuthTokenGuard: the real dashboard with an access token answers the page to anyone and everything else only with it")
struct AuthTokenGuardTests {
    let broker = InMemoryBroker()
    private static let token = "s3cret-token-for-the-dashboard-tests"

    private func bus(_ name: String) -> InMemoryBus {
        let bus = InMemoryBus(broker: broker, clientID: "\(name)-\(UUID().uuidString)", cleanStart: true)
        bus.connect()
        return bus
    }

    private static func configuration(host: String = "127.0.0.1", token: String? = token, file: String? = nil) -> DashboardConfiguration {
        DashboardConfiguration(httpHost: host, httpPort: 0, requestTimeout: 0.5, authToken: token, authTokenFile: file)
    }

    /// A GET with the given headers: status, headers and body as text.
    private func get(_ dashboard: DashboardHarness, _ path: String, _ headers: [(String, String)] = []) async throws -> (
        status: Int, headers: HTTPHeaders, body: String
    ) {
        var request = HTTPClientRequest(url: dashboard.base + path)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 8 * 1024 * 1024)
        return (Int(response.status.code), response.headers, String(buffer: body))
    }

    /// Expects the API's 401: the JSON error `unauthorized`, `WWW-Authenticate: Bearer`, and no token in the answer.
    private func expectUnauthorized(_ answer: (status: Int, headers: HTTPHeaders, body: String), _ wording: String) throws {
        #expect(answer.status == 401)
        #expect(answer.headers.first(name: "www-authenticate") == "Bearer")
        #expect(answer.headers.first(name: "content-type") == "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == "unauthorized")
        let message = try #require(error["message"] as? String)
        #expect(message.contains(wording))
        #expect(!answer.body.contains(Self.token))
    }

    /// Opens the event stream with `headers` and reads until the first `devices` event.
    private func streamOpens(_ dashboard: DashboardHarness, _ headers: [(String, String)]) async throws -> Bool {
        var request = HTTPClientRequest(url: dashboard.base + "/events")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let stream = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        guard stream.status.code == 200, stream.headers.first(name: "content-type") == "text/event-stream" else { return false }
        var parser = ServerEventParser()
        for try await buffer in stream.body where parser.feed(String(buffer: buffer)).contains(where: { $0.name == "devices" }) {
            return true
        }
        return false
    }

    @Test("Without a token, a request for another host name (DNS rebinding) gets 403 and publishes nothing; 127.0.0.1 works")
    func foreignHostWithoutToken() async throws {
        let watcher = bus("watcher")
        let commands = try await watcher.subscribe(to: TopicFilter("stepcompass/+/cmd/reset-position"))
        try await DashboardHarness.with(bus: bus("dashboard"), configuration: Self.configuration(token: nil)) { dashboard in
            let port = URL(string: dashboard.base)?.port ?? 0
            let rebound = try await get(dashboard, "/api/state", [("Host", "evil.test:\(port)")])
            #expect(rebound.status == 403)
            #expect(rebound.body.contains("no access token") && rebound.body.contains("evil.test"))
            func reset(_ device: String, host: String?) async throws -> UInt {
                var request = HTTPClientRequest(url: dashboard.base + "/api/devices/\(device)/reset-position")
                request.method = .POST
                if let host {
                    // What a rebound page's browser sends: its own name, and same-origin with it.
                    request.headers.add(name: "Host", value: host)
                    request.headers.add(name: "Origin", value: "http://\(host)")
                    request.headers.add(name: "Sec-Fetch-Site", value: "same-origin")
                }
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: "{}"))
                return try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code
            }
            #expect(try await reset("rebound", host: "evil.test:\(port)") == 403)
            #expect(try await reset("own", host: nil) == 202)
            // The refused command, had it been published, would have come first.
            var iterator = commands.makeAsyncIterator()
            #expect(await iterator.next()?.topic == "stepcompass/own/cmd/reset-position")
            #expect(try await get(dashboard, "/api/state").status == 200)
        }
    }

    @Test("An API route without the token, or with a wrong one, gets 401 with the API's error; with it, 200")
    func apiRoute() async throws {
        try await DashboardHarness.with(bus: bus("dashboard"), configuration: Self.configuration()) { dashboard in
            try expectUnauthorized(try await get(dashboard, "/api/state"), "needs its access token")
            try expectUnauthorized(try await get(dashboard, "/api/state", [("Authorization", "Bearer wrong-token-123456789")]), "is wrong")
            try expectUnauthorized(try await get(dashboard, "/api/state?token=\(Self.token)"), "needs its access token")
            try expectUnauthorized(
                try await get(dashboard, "/api/state", [("Cookie", "stepcompass-token-\(dashboard.port)=not-it-but-long-enough")]), "is wrong")
            // The right token in another port's cookie (the browser sends a host's cookies to all its ports) is not ours.
            try expectUnauthorized(
                try await get(dashboard, "/api/state", [("Cookie", "stepcompass-token-1=\(Self.token)")]), "needs its access token")
            let bearer = try await get(dashboard, "/api/state", [("Authorization", "Bearer \(Self.token)")])
            #expect(bearer.status == 200)
            #expect(bearer.body.contains("\"devices\""))
            let cookie = try await get(dashboard, "/api/state", [("Cookie", "stepcompass-token-\(dashboard.port)=\(Self.token)")])
            #expect(cookie.status == 200)
            let auth = try await get(dashboard, "/api/auth", [("Authorization", "Bearer \(Self.token)")])
            #expect(auth.status == 200)
            #expect(auth.body == #"{"tokenRequired":true}"#)
            try expectUnauthorized(try await get(dashboard, "/api/auth"), "needs its access token")
            try expectUnauthorized(try await get(dashboard, "/journal/photos/a.jpg"), "needs its access token")
        }
    }

    @Test("A command without the token gets 401 and publishes nothing; with it, 202")
    func command() async throws {
        let listener = bus("listener")
        let commands = try await listener.subscribe(to: TopicFilter("stepcompass/+/cmd/#"))
        try await DashboardHarness.with(bus: bus("dashboard"), configuration: Self.configuration()) { dashboard in
            let json = ("Content-Type", "application/json")
            let refused = try await dashboard.send("/api/devices/walker-1/reset-position", headers: [json], body: "{}")
            #expect(refused.status == 401)
            let accepted = try await dashboard.send(
                "/api/devices/walker-1/calibrate", headers: [json, ("Authorization", "Bearer \(Self.token)")], body: #"{"action": "reset"}"#)
            #expect(accepted.status == 202)
        }
        let first = try #require(await commands.next(timeout: .seconds(3)))
        #expect(first.topic == "stepcompass/walker-1/cmd/calibrate")
    }

    @Test("The event stream without the token, or with a wrong one, gets 401; with the bearer token or the page's cookie it streams")
    func eventStream() async throws {
        try await DashboardHarness.with(bus: bus("dashboard"), configuration: Self.configuration()) { dashboard in
            try expectUnauthorized(try await get(dashboard, "/events"), "needs its access token")
            try expectUnauthorized(try await get(dashboard, "/events", [("Authorization", "Bearer \(Self.token)-not")]), "is wrong")
            try expectUnauthorized(
                try await get(dashboard, "/events", [("Cookie", "stepcompass-token-\(dashboard.port)=wrong-but-long-enough")]), "is wrong")
            #expect(try await streamOpens(dashboard, [("Authorization", "Bearer \(Self.token)")]))
            #expect(try await streamOpens(dashboard, [("Cookie", "lang=en; stepcompass-token-\(dashboard.port)=\(Self.token)")]))
        }
    }

    @Test("The page's files and /healthz are open without the token; an unknown file is not")
    func pageIsOpen() async throws {
        try await DashboardHarness.with(bus: bus("dashboard"), configuration: Self.configuration()) { dashboard in
            let health = try await get(dashboard, "/healthz")
            #expect(health.status == 200)
            #expect(health.body == #"{"status":"ok"}"#)
            for path in ["/", "/index.html", "/app.js", "/auth.js", "/map.js", "/style.css", "/favicon.svg"] {
                #expect(try await get(dashboard, path).status == 200, "\(path)")
            }
            #expect(try await get(dashboard, "/").body.contains("id=\"auth-form\""))
            // Leaflet's files are open (here: none installed, so 400/404, but not 401).
            #expect(try await get(dashboard, "/vendor/leaflet/leaflet.js").status != 401)
            #expect(try await get(dashboard, "/no-such-file.js").status == 401)
            #expect(try await get(dashboard, "/no-such-file.js", [("Authorization", "Bearer \(Self.token)")]).status == 404)
        }
    }

    @Test("Without a token configured nothing changes: the API and the stream answer without one, /api/auth says none is required")
    func noToken() async throws {
        try await DashboardHarness.with(bus: bus("dashboard"), configuration: Self.configuration(token: nil)) { dashboard in
            let state = try await get(dashboard, "/api/state")
            #expect(state.status == 200)
            #expect(try await get(dashboard, "/api/state", [("Authorization", "Bearer anything-at-all-here")]).status == 200)
            #expect(try await get(dashboard, "/api/auth").body == #"{"tokenRequired":false}"#)
            #expect(try await streamOpens(dashboard, []))
        }
    }

    @Test(
        "Listening beyond loopback without a token is refused at start, naming both options",
        arguments: ["0.0.0.0", "::", "192.168.1.20", "dashboard.example", "127.example.com"])
    func refusedBeyondLoopback(host: String) throws {
        let runtime = BusRuntime(
            service: "dashboard", topics: Topics(), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            bus: bus("dashboard"))
        #expect {
            try buildDashboard(configuration: Self.configuration(host: host, token: nil), runtime: runtime)
        } throws: { error in
            guard case .invalidConfiguration(let message) = error as? DashboardServiceError else { return false }
            return message.contains("--http-host \(host)") && message.contains("--auth-token (AUTH_TOKEN)")
                && message.contains("--auth-token-file (AUTH_TOKEN_FILE)")
        }
        // Read from configuration as the executable does (HTTP_HOST=0.0.0.0 and nothing else).
        let provider = InMemoryProvider(values: ["http.host": .init(.string(host), isSecret: false)])
        #expect(throws: DashboardServiceError.self) { try DashboardConfiguration(config: ConfigReader(provider: provider)) }
    }

    @Test("Loopback addresses need no token; 0.0.0.0 with a token starts and guards the API")
    func loopbackAndToken() async throws {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"] {
            #expect(DashboardConfiguration.isLoopback(host), "\(host)")
            #expect(throws: Never.self) { try Self.configuration(host: host, token: nil).validate() }
        }
        for host in ["0.0.0.0", "::", "128.0.0.1", "127.0.0", "127.0.0.1.5", "127.0.0.256", "localhost.example", "::2"] {
            #expect(!DashboardConfiguration.isLoopback(host), "\(host)")
        }
        try await DashboardHarness.with(bus: bus("dashboard"), configuration: Self.configuration(host: "0.0.0.0")) { dashboard in
            let health = try await get(dashboard, "/healthz")
            #expect(health.status == 200)
            #expect(try await get(dashboard, "/api/state").status == 401)
            #expect(try await get(dashboard, "/api/state", [("Authorization", "Bearer \(Self.token)")]).status == 200)
        }
    }

    @Test("The token's checks: both options, too short, not printable ASCII; an empty value is none")
    func tokenChecks() throws {
        func message(_ configuration: DashboardConfiguration) -> String? {
            do {
                try configuration.validate()
                return nil
            } catch {
                return error.description
            }
        }
        let both = message(Self.configuration(file: "/tmp/token"))
        #expect(both?.contains("--auth-token (AUTH_TOKEN) and --auth-token-file (AUTH_TOKEN_FILE) are both set") == true)
        let short = message(Self.configuration(token: "fifteen-chars-x"))
        #expect(short?.contains("--auth-token is too short: 15 characters, at least 16") == true)
        #expect(message(Self.configuration(token: "sixteen-chars-xx")) == nil)
        #expect(message(Self.configuration(token: "with a space in the middle"))?.contains("printable ASCII") == true)
        #expect(message(Self.configuration(token: "non-ascii-token-é-long")) != nil)
        let provider = InMemoryProvider(values: [
            "auth.token": .init(.string(""), isSecret: true), "auth.token.file": .init(.string(""), isSecret: false),
        ])
        // ServiceLifecycle logs its services, the configuration inside, at debug level: never the token.
        let configured = Self.configuration()
        for text in ["\(configured)", String(reflecting: configured), "\([configured])", "\(Optional(configured) as Any)"] {
            #expect(!text.contains(Self.token), "\(text)")
            #expect(text.contains("<redacted>") && text.contains("httpHost"))
        }
        let empty = try DashboardConfiguration(config: ConfigReader(provider: provider))
        #expect(empty.authToken == nil && empty.authTokenFile == nil)
    }

    @Test("--auth-token-file: the file's content, trimmed, is the token; a missing, unreadable or empty file stops the start")
    func tokenFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("token").path
        try Data("  \(Self.token)\n\n".utf8).write(to: URL(fileURLWithPath: file))
        let provider = InMemoryProvider(values: [
            "http.host": .init(.string("0.0.0.0"), isSecret: false), "http.port": .init(.int(0), isSecret: false),
            "auth.token.file": .init(.string(file), isSecret: false),
        ])
        let configuration = try DashboardConfiguration(config: ConfigReader(provider: provider))
        #expect(configuration.authTokenFile == file)
        #expect(try configuration.accessToken() == Self.token)
        try await DashboardHarness.with(bus: bus("dashboard"), configuration: configuration) { dashboard in
            let refused = try await get(dashboard, "/api/state")
            #expect(refused.status == 401)
            #expect(try await get(dashboard, "/api/state", [("Authorization", "Bearer \(Self.token)")]).status == 200)
        }

        func failure(_ path: String) -> String {
            do {
                _ = try Self.configuration(token: nil, file: path).accessToken()
                return ""
            } catch {
                return error.description
            }
        }
        #expect(failure(folder.appendingPathComponent("missing").path) == "--auth-token-file \(folder.path)/missing does not exist")
        let blank = folder.appendingPathComponent("blank").path
        try Data(" \n\t\n".utf8).write(to: URL(fileURLWithPath: blank))
        #expect(failure(blank) == "--auth-token-file \(blank) is empty")
        #expect(failure(folder.path) == "--auth-token-file \(folder.path) cannot be read")
        let short = folder.appendingPathComponent("short").path
        try Data("short\n".utf8).write(to: URL(fileURLWithPath: short))
        #expect(failure(short).contains("--auth-token-file \(short) is too short: 5 characters, at least 16"))
        let large = folder.appendingPathComponent("large").path
        try Data(repeating: UInt8(ascii: "a"), count: 5_000).write(to: URL(fileURLWithPath: large))
        #expect(failure(large) == "--auth-token-file \(large) is larger than 4 KiB: it should hold the token alone")
        #expect(failure("/dev/zero") == "--auth-token-file /dev/zero is larger than 4 KiB: it should hold the token alone")
        if getuid() != 0 {
            let locked = folder.appendingPathComponent("locked").path
            try Data(Self.token.utf8).write(to: URL(fileURLWithPath: locked))
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked)
            #expect(failure(locked) == "--auth-token-file \(locked) cannot be read")
        }
    }
}
