import Foundation
import HTTPTypes
import ServiceRuntime

/// Whether a request may reach the dashboard's data, decided from its method, path and headers alone (a pure value,
/// tested without a server; ``AuthTokenGuard`` applies it).
///
/// Without a token (`--auth-token` or `--auth-token-file` not set) every request passes, as before. With one, every
/// request must present it, except the page itself, which asks the person for the token: a GET or HEAD of
/// `/healthz`, of `/` and of the page's own files (`/index.html`, `/app.js`, `/style.css`, the icons: a single path
/// component naming one of them exactly), and of Leaflet's files under `/vendor/leaflet/` (one or two plain names).
/// Everything else (the JSON API, the event stream, the journal's photos, unknown paths) needs the token, presented
/// in one of two ways:
/// - `Authorization: Bearer TOKEN`: scripts, curl, anything that can set a header;
/// - the cookie `stepcompass-token-PORT=TOKEN` for the port the request was addressed to (its value
///   percent-encoded): what the page sets from the token it keeps in `localStorage`, because the browser sends it
///   by itself with the event stream (`EventSource` cannot set headers), the photos and the downloads. The port in
///   the name keeps the tokens of two dashboards on one host apart (cookies ignore the port).
///
/// Tokens are compared in time that depends only on their lengths. A request without a token, or with a wrong one,
/// gets 401. Without a token configured, a request whose `Host` is not a loopback name (127.0.0.0/8, `localhost`,
/// `[::1]`) gets 403: that is a page of another site whose name was pointed at this computer (DNS rebinding).
struct AuthTokenPolicy: Sendable {
    /// What happens to a request.
    enum Verdict: Sendable, Equatable {
        case allow
        /// 401: no token was presented; the reason in words.
        case missing(String)
        /// 401: a token was presented and it is not this dashboard's; the reason in words.
        case wrong(String)
        /// 403: without a token, a request for a host name that is not a loopback one (DNS rebinding: a page whose name
        /// was pointed at 127.0.0.1 would otherwise be same-origin with the dashboard); the reason in words.
        case foreignHost(String)
    }

    /// The token every guarded request must present; nil: none is required.
    let token: String?
    /// The page's files, by name (``StaticFiles``): open without the token.
    let pageFiles: Set<String>

    /// The start of the name of the cookie the page sets (the page adds `-PORT`).
    static let cookiePrefix = "stepcompass-token"
    /// Where the page's open files of Leaflet live.
    static let vendorPrefix = "/vendor/leaflet/"
    /// The open paths besides the page's files.
    static let openPaths: Set<String> = ["/", "/healthz"]

    /// The verdict for a request.
    /// - Parameters:
    ///   - host: the request's `Host` (its authority, with the port), nil when it sent none.
    ///   - headers: the request's header fields (`Authorization`, `Cookie`).
    func decide(method: HTTPRequest.Method, path: String, host: String?, headers: HTTPFields) -> Verdict {
        guard let token else {
            // Without a token the dashboard listens on loopback only, and only its loopback names reach it legitimately.
            // A page of another site whose name a DNS server re-points at 127.0.0.1 (DNS rebinding) is same-origin with
            // what it loads, so its requests pass the cross-site checks; its Host header still carries its own name.
            if let host, !Self.isLoopbackAuthority(host) {
                return .foreignHost(
                    "this dashboard has no access token, so it answers only requests addressed to 127.0.0.1, localhost or [::1], "
                        + "not to '\(host.prefix(64))'; to reach it by another name, start it with --auth-token")
            }
            return .allow
        }
        guard !isOpen(method: method, path: path) else { return .allow }
        let presented = Self.presented(headers, host: host)
        guard !presented.isEmpty else {
            return .missing(
                "this dashboard needs its access token: send Authorization: Bearer TOKEN "
                    + "(the token of --auth-token or --auth-token-file; the page asks for it)")
        }
        // Every candidate is compared, so the time does not say which one matched.
        var matched = false
        for candidate in presented where AccessToken.matches(candidate, token) { matched = true }
        return matched ? .allow : .wrong("the access token is wrong: it is not the token this dashboard was started with")
    }

    /// Whether a request is for the page itself (open without the token).
    func isOpen(method: HTTPRequest.Method, path: String) -> Bool {
        guard method == .get || method == .head else { return false }
        if Self.openPaths.contains(path) { return true }
        // The page's files are plain names (no `/`): `/NAME` exactly.
        if path.hasPrefix("/"), pageFiles.contains(String(path.dropFirst())) { return true }
        if path.hasPrefix(Self.vendorPrefix) {
            let rest = path.dropFirst(Self.vendorPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            return (1...2).contains(rest.count) && rest.allSatisfy(Self.isPlainName)
        }
        return false
    }

    /// The tokens a request presents: its bearer token, and the value of the cookie `stepcompass-token-PORT` for the
    /// port it was addressed to (its `Host`; 80 without one). A browser sends every cookie of a host to every port of
    /// it: the cookie of another dashboard on the same host is not this one's, and is not compared here.
    static func presented(_ headers: HTTPFields, host: String?) -> [String] {
        var tokens: [String] = []
        tokens += headers[values: .authorization].compactMap(AccessToken.bearer(from:))
        let cookieName = "\(cookiePrefix)-\(port(of: host))"
        for line in headers[values: .cookie] {
            for pair in line.split(separator: ";") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
                guard name == cookieName else { continue }
                let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                tokens.append(value.removingPercentEncoding ?? value)
            }
        }
        return tokens.filter { !$0.isEmpty }
    }

    /// The port of a `Host` header (`name:port`, `[v6]:port`), `default` when it names none, as the page names its
    /// cookie when `location.port` is empty: a browser leaves the scheme's default port (80 or 443) out of both, so
    /// the server cannot tell which it was (behind a TLS proxy that passes `Host` on, it is 443).
    static func port(of host: String?) -> String {
        guard let host else { return "default" }
        let afterBracket = host.lastIndex(of: "]").map { host[host.index(after: $0)...] } ?? Substring(host)
        guard let colon = afterBracket.lastIndex(of: ":") else { return "default" }
        let port = afterBracket[afterBracket.index(after: colon)...]
        return port.isEmpty || !port.allSatisfy(\.isNumber) ? "default" : String(port)
    }

    /// Whether a `Host` header (`name[:port]`, `[v6]:port`) names a loopback host.
    static func isLoopbackAuthority(_ authority: String) -> Bool {
        var host = Substring(authority.trimmingCharacters(in: .whitespaces))
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            host = host[...close]
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }  // `localhost.` is `localhost`
        return DashboardConfiguration.isLoopback(String(host))
    }

    /// A file name as Leaflet's folder has them: letters, digits, `.`, `_` and `-`, starting with a letter or digit
    /// (no `..`, no percent-encoding).
    private static func isPlainName(_ name: Substring) -> Bool {
        let alphanumeric: (Unicode.Scalar) -> Bool = { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": true
            default: false
            }
        }
        guard let first = name.unicodeScalars.first, alphanumeric(first), !name.contains("..") else { return false }
        return name.unicodeScalars.allSatisfy { alphanumeric($0) || $0 == "." || $0 == "_" || $0 == "-" }
    }
}

extension AuthTokenPolicy: CustomStringConvertible {
    /// Whether a token is required, never the token.
    var description: String { "AuthTokenPolicy(token: \(token == nil ? "none" : "required, redacted"))" }
}
