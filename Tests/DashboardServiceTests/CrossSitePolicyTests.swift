import HTTPTypes
import Hummingbird
import Testing

@testable import DashboardService

@Suite("CrossSitePolicy: which state-changing API requests the dashboard refuses")
struct CrossSitePolicyTests {
    private static let json: HTTPFields = [.contentType: "application/json"]

    private func decide(
        _ headers: HTTPFields = json, method: HTTPRequest.Method = .post, path: String = "/api/devices/walker-1/reset-position",
        host: String? = "127.0.0.1:8080"
    ) -> CrossSitePolicy.Verdict {
        CrossSitePolicy.decide(method: method, path: path, host: host, headers: headers)
    }

    private func fields(_ pairs: [(String, String)], contentType: String? = "application/json") -> HTTPFields {
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    private func isForbidden(_ verdict: CrossSitePolicy.Verdict) -> Bool {
        if case .forbidden = verdict { return true }
        return false
    }

    @Test("A script's JSON request without Origin or Sec-Fetch-Site is allowed, with or without parameters")
    func scripts() {
        #expect(decide() == .allow)
        #expect(decide(fields([], contentType: "application/json; charset=utf-8")) == .allow)
        #expect(decide(fields([], contentType: "Application/JSON ; charset=UTF-8")) == .allow)
        #expect(decide(method: .put, path: "/api/x") == .allow)
    }

    @Test(
        "GET, HEAD and paths outside /api are never refused",
        arguments: [
            (HTTPRequest.Method.get, "/api/state"), (.head, "/api/state"), (.get, "/events"), (.post, "/events"),
            (.post, "/apiary"), (.delete, "/journal/photos/a.jpg"),
        ])
    func unguarded(method: HTTPRequest.Method, path: String) {
        let hostile = fields([("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")], contentType: nil)
        #expect(decide(hostile, method: method, path: path) == .allow)
    }

    @Test(
        "Sec-Fetch-Site: same-origin and none pass; cross-site, same-site and unknown values get 403",
        arguments: [
            ("same-origin", true), ("none", true), ("Same-Origin", true), ("cross-site", false), ("same-site", false),
            ("", false), ("whatever", false),
        ])
    func fetchSite(value: String, allowed: Bool) {
        let verdict = decide(fields([("Sec-Fetch-Site", value)]), path: "/api/markers/refresh")
        if allowed {
            #expect(verdict == .allow)
        } else {
            #expect(isForbidden(verdict))
        }
    }

    @Test("Every state-changing method under /api is guarded", arguments: [HTTPRequest.Method.post, .put, .patch, .delete])
    func methods(method: HTTPRequest.Method) {
        #expect(isForbidden(decide(fields([("Sec-Fetch-Site", "cross-site")]), method: method, path: "/api/devices/a/walk")))
        #expect(isForbidden(decide(fields([("Origin", "http://evil.example")]), method: method, path: "/api")))
    }

    @Test(
        "Origin must name the request's Host (host and port, the scheme's default port when none is given)",
        arguments: [
            ("http://127.0.0.1:8080", "127.0.0.1:8080", true),
            ("http://LOCALHOST:8080/", "localhost:8080", true),
            ("http://dashboard.lan", "dashboard.lan", true),
            ("http://dashboard.lan", "dashboard.lan:80", true),
            ("https://dashboard.lan", "dashboard.lan:443", true),
            ("http://[::1]:8080", "[::1]:8080", true),
            ("http://evil.example", "127.0.0.1:8080", false),
            ("http://127.0.0.1:9999", "127.0.0.1:8080", false),
            ("http://localhost:8080", "127.0.0.1:8080", false),
            ("https://dashboard.lan", "dashboard.lan", true),
            ("https://dashboard.lan", "dashboard.lan:80", false),
            ("http://127.0.0.1.evil.example:8080", "127.0.0.1:8080", false),
            ("http://[::1]:8081", "[::1]:8080", false),
            ("null", "127.0.0.1:8080", false),
            ("file://", "127.0.0.1:8080", false),
            ("http://user@127.0.0.1:8080", "127.0.0.1:8080", false),
            ("127.0.0.1:8080", "127.0.0.1:8080", false),
            ("http://127.0.0.1:8080, http://evil.example", "127.0.0.1:8080", false),
        ])
    func origin(origin: String, host: String, allowed: Bool) {
        let verdict = decide(fields([("Origin", origin)]), path: "/api/devices/walker-1/bearing-lock", host: host)
        if allowed {
            #expect(verdict == .allow)
        } else {
            #expect(isForbidden(verdict))
        }
    }

    @Test("An Origin with no Host to compare it with is refused")
    func originWithoutHost() {
        #expect(isForbidden(decide(fields([("Origin", "http://127.0.0.1:8080")]), host: nil)))
    }

    @Test(
        "A body not declared as JSON gets 415, with what was sent",
        arguments: [
            (
                "application/x-www-form-urlencoded",
                "the body must be JSON sent as Content-Type: application/json (got 'application/x-www-form-urlencoded')"
            ),
            ("text/plain;charset=UTF-8", "the body must be JSON sent as Content-Type: application/json (got 'text/plain;charset=UTF-8')"),
            (
                "multipart/form-data; boundary=x",
                "the body must be JSON sent as Content-Type: application/json (got 'multipart/form-data; boundary=x')"
            ),
            ("application/jsonp", "the body must be JSON sent as Content-Type: application/json (got 'application/jsonp')"),
            (nil, "the body must be JSON sent as Content-Type: application/json (got none)"),
        ] as [(String?, String)])
    func contentType(value: String?, reason: String) {
        #expect(decide(fields([], contentType: value)) == .unsupportedMediaType(reason))
    }

    @Test("A cross-site request is refused as cross-site (403) before its content type is looked at")
    func crossSiteFirst() {
        let form = fields([("Origin", "http://evil.example")], contentType: "application/x-www-form-urlencoded")
        #expect(
            decide(form)
                == .forbidden(
                    "cross-site requests are refused: the Origin 'http://evil.example' is not this dashboard ('127.0.0.1:8080')"))
        #expect(
            decide(fields([("Sec-Fetch-Site", "cross-site")], contentType: nil))
                == .forbidden(
                    "cross-site requests are refused: Sec-Fetch-Site is 'cross-site'; commands come from the dashboard's own page or from scripts"))
        #expect(decide(fields([("Origin", "null")])) == .forbidden("cross-site requests are refused: the Origin is 'null'"))
    }
}
