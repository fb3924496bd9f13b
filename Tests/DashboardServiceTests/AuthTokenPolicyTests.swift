import HTTPTypes
import Testing

@testable import DashboardService

@Suite("AuthTokenPolicy: which requests need the dashboard's access token, and how it is presented")
struct AuthTokenPolicyTests {
    private static let token = "correct-horse-battery-staple"
    private static let pageFiles: Set<String> = ["index.html", "app.js", "map.js", "style.css", "favicon.svg"]
    private let policy = AuthTokenPolicy(token: token, pageFiles: pageFiles)

    private func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    /// The verdict for a request addressed to `host` (the dashboard's cookie is `stepcompass-token-8080` there).
    private func decide(
        _ pairs: [(String, String)] = [], method: HTTPRequest.Method = .get, path: String = "/api/state", host: String = "127.0.0.1:8080"
    ) -> AuthTokenPolicy.Verdict {
        policy.decide(method: method, path: path, host: host, headers: fields(pairs))
    }

    private static func isMissing(_ verdict: AuthTokenPolicy.Verdict) -> Bool {
        if case .missing = verdict { return true }
        return false
    }

    private static func isWrong(_ verdict: AuthTokenPolicy.Verdict) -> Bool {
        if case .wrong = verdict { return true }
        return false
    }

    @Test("Without a configured token every request passes, as before")
    func open() {
        let none = AuthTokenPolicy(token: nil, pageFiles: Self.pageFiles)
        for (method, path) in [(HTTPRequest.Method.get, "/api/state"), (.get, "/events"), (.post, "/api/markers/refresh"), (.get, "/nope")] {
            #expect(none.decide(method: method, path: path, host: "127.0.0.1:8080", headers: fields([])) == .allow)
            #expect(none.decide(method: method, path: path, host: "127.0.0.1:8080", headers: fields([("Authorization", "Bearer wrong")])) == .allow)
        }
    }

    /// DNS rebinding: a page of another site whose name is re-pointed at 127.0.0.1 is same-origin with the dashboard,
    /// so the cross-site checks let it through; only its Host header gives it away.
    @Test("Without a token, only loopback host names are answered; with one, any name that presents it")
    func loopbackHostsOnlyWithoutToken() {
        let none = AuthTokenPolicy(token: nil, pageFiles: Self.pageFiles)
        for host in ["127.0.0.1:8080", "127.0.0.1", "127.3.2.1:80", "localhost:8080", "LOCALHOST", "localhost.:8080", "[::1]:8080", "[::1]"] {
            #expect(none.decide(method: .post, path: "/api/markers/refresh", host: host, headers: fields([])) == .allow, "\(host)")
        }
        #expect(none.decide(method: .get, path: "/api/state", host: nil, headers: fields([])) == .allow)
        for host in ["evil.test:8080", "evil.test", "127.0.0.1.evil.test", "localhost.evil.test:8080", "192.168.1.5:8080", "[::2]:8080", "[::1"] {
            for (method, path) in [(HTTPRequest.Method.get, "/"), (.get, "/api/state"), (.get, "/events"), (.post, "/api/markers/refresh")] {
                guard case .foreignHost(let reason) = none.decide(method: method, path: path, host: host, headers: fields([])) else {
                    Issue.record("\(host) \(method) \(path) was not refused")
                    continue
                }
                #expect(reason.contains("--auth-token"))
            }
        }
        let bearer = [("Authorization", "Bearer \(Self.token)")]
        #expect(policy.decide(method: .post, path: "/api/markers/refresh", host: "stepcompass.example:8080", headers: fields(bearer)) == .allow)
        #expect(Self.isMissing(policy.decide(method: .get, path: "/api/state", host: "stepcompass.example", headers: fields([]))))
    }

    @Test(
        "The page's own files, Leaflet's files and /healthz are open without the token (GET and HEAD)",
        arguments: [
            (HTTPRequest.Method.get, "/"), (.head, "/"), (.get, "/healthz"), (.get, "/index.html"), (.get, "/app.js"),
            (.get, "/map.js"), (.get, "/style.css"), (.head, "/favicon.svg"), (.get, "/vendor/leaflet/leaflet.js"),
            (.get, "/vendor/leaflet/MarkerCluster.Default.css"), (.get, "/vendor/leaflet/images/marker-icon.png"),
        ])
    func pageIsOpen(method: HTTPRequest.Method, path: String) {
        #expect(decide(method: method, path: path) == .allow)
        #expect(policy.isOpen(method: method, path: path))
    }

    @Test(
        "Everything else needs the token: the API, the stream, photos, unknown names and paths that only look like the page's",
        arguments: [
            (HTTPRequest.Method.get, "/api/state"), (.get, "/events"), (.get, "/api/auth"), (.get, "/api/map"),
            (.get, "/api/markers/m1/nearest"), (.get, "/api/devices/walker-1/walks/w1.gpx"), (.get, "/journal/photos/a.jpg"),
            (.post, "/api/devices/walker-1/bearing-lock"), (.post, "/api/markers/refresh"), (.post, "/"), (.post, "/app.js"),
            (.delete, "/index.html"), (.get, "/secret.js"), (.get, "//api/state"), (.get, "/app.js/../api/state"),
            (.get, "/%61pp.js"), (.get, "/app.js/"), (.get, "/healthz/x"), (.get, "/vendor/leaflet/../../api/state"),
            (.get, "/vendor/leaflet/a/b/c.js"), (.get, "/vendor/leaflet/"), (.get, "/vendor/leaflet/%2e%2e/x.js"),
            (.get, "/vendor/leaflet/.hidden.js"), (.get, "/vendor/leaflet//api"),
        ])
    func guarded(method: HTTPRequest.Method, path: String) {
        #expect(Self.isMissing(decide(method: method, path: path)))
        #expect(Self.isMissing(decide([("Authorization", "Basic \(Self.token)")], method: method, path: path)))
        #expect(decide([("Authorization", "Bearer \(Self.token)")], method: method, path: path) == .allow)
    }

    @Test("Authorization: Bearer TOKEN passes, with any case of the scheme and spaces around")
    func bearer() {
        #expect(decide([("Authorization", "Bearer \(Self.token)")]) == .allow)
        #expect(decide([("Authorization", "bearer \(Self.token)")]) == .allow)
        #expect(decide([("Authorization", "  BEARER   \(Self.token) ")]) == .allow)
    }

    @Test("The page's cookie stepcompass-token-PORT of the port addressed passes, among other cookies, percent-encoded or not")
    func cookie() {
        #expect(decide([("Cookie", "stepcompass-token-8080=\(Self.token)")]) == .allow)
        #expect(decide([("Cookie", "theme=dark; stepcompass-token-8080=\(Self.token); other=1")]) == .allow)
        #expect(decide([("Cookie", "a=b"), ("Cookie", "stepcompass-token-8080=\(Self.token)")]) == .allow)
        #expect(decide([("Cookie", "stepcompass-token-8080=\(Self.token)")], host: "[::1]:8080") == .allow)
        let special = "p%ss;w=rd,\"x\"-0123456789"
        let encoded = AuthTokenPolicy(token: special, pageFiles: [])
        let cookie = "stepcompass-token-default=p%25ss%3Bw%3Drd%2C%22x%22-0123456789"
        #expect(encoded.decide(method: .get, path: "/events", host: "dashboard.example", headers: fields([("Cookie", cookie)])) == .allow)
        // Another dashboard's cookie on the same host (another port, another token) does not hide the right one.
        #expect(decide([("Cookie", "stepcompass-token-9000=other-dashboards-token; stepcompass-token-8080=\(Self.token)")]) == .allow)
        // A browser sends a host's cookies to all its ports: the right token under another port's name, or under the
        // bare prefix, is not this dashboard's cookie.
        #expect(Self.isMissing(decide([("Cookie", "stepcompass-token-9000=\(Self.token)")])))
        #expect(Self.isMissing(decide([("Cookie", "stepcompass-token=\(Self.token)")])))
        #expect(Self.isMissing(decide([("Cookie", "stepcompass-token-8080=\(Self.token)")], host: "127.0.0.1:9000")))
        #expect(AuthTokenPolicy.port(of: "127.0.0.1:8080") == "8080" && AuthTokenPolicy.port(of: "[::1]:81") == "81")
        #expect(
            AuthTokenPolicy.port(of: "[::1]") == "default" && AuthTokenPolicy.port(of: "localhost") == "default"
                && AuthTokenPolicy.port(of: nil) == "default")
    }

    @Test("No token, an empty one, another scheme or another cookie's name is missing; a wrong one is wrong")
    func refused() {
        #expect(Self.isMissing(decide()))
        #expect(Self.isMissing(decide([("Authorization", "Bearer ")])))
        #expect(Self.isMissing(decide([("Authorization", "Token \(Self.token)")])))
        #expect(Self.isMissing(decide([("Cookie", "token=\(Self.token); auth=\(Self.token)")])))
        #expect(Self.isMissing(decide([("Cookie", "stepcompass-token-8080=")])))
        #expect(Self.isWrong(decide([("Authorization", "Bearer wrong-token-of-some-length")])))
        #expect(Self.isWrong(decide([("Authorization", "Bearer \(Self.token)x")])))
        #expect(Self.isWrong(decide([("Authorization", "Bearer \(Self.token.dropLast())")])))
        #expect(Self.isWrong(decide([("Authorization", "Bearer \(Self.token.uppercased())")])))
        #expect(Self.isWrong(decide([("Cookie", "stepcompass-token-8080=wrong")])))
        // A wrong cookie beside the right bearer token (a stale cookie, a script's header) passes.
        #expect(decide([("Cookie", "stepcompass-token-8080=stale"), ("Authorization", "Bearer \(Self.token)")]) == .allow)
    }

    @Test("The refusal's words never contain the token, presented or configured")
    func reasonsKeepTheTokenSecret() {
        for verdict in [decide(), decide([("Authorization", "Bearer presented-wrong-token")])] {
            switch verdict {
            case .missing(let reason), .wrong(let reason):
                #expect(!reason.contains(Self.token))
                #expect(!reason.contains("presented-wrong-token"))
                #expect(reason.contains("token"))
            case .allow, .foreignHost:
                Issue.record("not refused for its token: \(verdict)")
            }
        }
    }

    @Test("The policy's description says whether a token is required, never the token")
    func description() {
        #expect(!"\(policy)".contains(Self.token))
        #expect(!String(reflecting: policy).contains(Self.token))
        #expect("\(AuthTokenPolicy(token: nil, pageFiles: []))" == "AuthTokenPolicy(token: none)")
    }
}
