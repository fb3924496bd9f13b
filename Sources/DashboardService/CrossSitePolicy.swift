import Foundation
import HTTPTypes
import Hummingbird

/// Whether a request may change state through the dashboard's API, decided from its method, path, `Host` and headers
/// alone (a pure value, tested without a server; ``CrossSiteGuard`` applies it).
///
/// A web page the person happens to visit can make their browser send requests to the dashboard on loopback; the
/// browser says where such a request comes from, so the API refuses it. Every state-changing request
/// (POST, PUT, PATCH, DELETE) under `/api` must:
/// - not come from another site: `Sec-Fetch-Site`, when present, must be `same-origin` or `none` (a typed URL, a
///   bookmark); `cross-site`, `same-site` and anything else are refused with 403;
/// - come from the dashboard's own origin: `Origin`, when present, must name the request's `Host` (host and port;
///   the scheme's default port when none is given); `null` (a sandboxed or file page) or an unreadable Origin,
///   or an Origin without a `Host` to compare, is refused with 403;
/// - carry JSON: `Content-Type` must be `application/json` (parameters such as `; charset=utf-8` allowed), which a
///   cross-site HTML form cannot send and a cross-site script cannot send without a CORS preflight the dashboard
///   never answers; anything else, or none, is refused with 415.
///
/// Requests without `Origin` and `Sec-Fetch-Site` (curl, scripts, the terminal client) pass when they send JSON.
/// GET and HEAD (the page, the state, the event stream, the services' answers) are never refused.
struct CrossSitePolicy: Sendable {
    /// What happens to a request.
    enum Verdict: Sendable, Equatable {
        case allow
        /// 403: the request comes from another site; the reason in words.
        case forbidden(String)
        /// 415: the body is not declared as JSON; the reason in words.
        case unsupportedMediaType(String)
    }

    /// The methods that change state.
    static let guardedMethods: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]

    /// `Sec-Fetch-Site`'s values that mean the person's own page or their own navigation.
    static let allowedFetchSites: Set<String> = ["same-origin", "none"]

    /// The verdict for a request.
    /// - Parameters:
    ///   - host: the request's `Host` (HTTP/1) or `:authority` (HTTP/2), nil when it has none.
    ///   - headers: the request's header fields (`Origin`, `Sec-Fetch-Site`, `Content-Type`).
    static func decide(method: HTTPRequest.Method, path: String, host: String?, headers: HTTPFields) -> Verdict {
        guard guardedMethods.contains(method), path == "/api" || path.hasPrefix("/api/") else { return .allow }
        if let site = headers[.secFetchSite] {
            let value = site.trimmingWhitespace().lowercased()
            guard allowedFetchSites.contains(value) else {
                return .forbidden(
                    "cross-site requests are refused: Sec-Fetch-Site is '\(value.prefix(40))'; "
                        + "commands come from the dashboard's own page or from scripts")
            }
        }
        if let origin = headers[.origin] {
            let value = origin.trimmingWhitespace()
            guard value.lowercased() != "null" else {
                return .forbidden("cross-site requests are refused: the Origin is 'null'")
            }
            guard let from = Authority(origin: value) else {
                return .forbidden("cross-site requests are refused: the Origin '\(value.prefix(100))' cannot be read")
            }
            guard let host, let to = Authority(host: host, defaultPort: from.port) else {
                return .forbidden("cross-site requests are refused: the request has no Host to compare its Origin with")
            }
            guard from == to else {
                return .forbidden("cross-site requests are refused: the Origin '\(value.prefix(100))' is not this dashboard ('\(host.prefix(100))')")
            }
        }
        let contentType = headers[.contentType] ?? ""
        guard mediaType(contentType) == "application/json" else {
            let sent = contentType.isEmpty ? "none" : "'\(contentType.prefix(100))'"
            return .unsupportedMediaType("the body must be JSON sent as Content-Type: application/json (got \(sent))")
        }
        return .allow
    }

    /// `application/json` for `Application/JSON; charset=utf-8`.
    static func mediaType(_ contentType: String) -> String {
        String(contentType.prefix { $0 != ";" }).trimmingWhitespace().lowercased()
    }

    /// A host and port as compared between `Origin` and `Host`.
    struct Authority: Sendable, Equatable {
        /// Lowercased; an IPv6 address keeps its brackets.
        let host: String
        let port: Int

        /// From `scheme://host[:port]` (the serialized origin a browser sends: no path, no user).
        init?(origin: String) {
            guard let separator = origin.range(of: "://") else { return nil }
            let scheme = origin[..<separator.lowerBound].lowercased()
            let defaultPort: Int
            switch scheme {
            case "http": defaultPort = 80
            case "https": defaultPort = 443
            default: return nil
            }
            var rest = origin[separator.upperBound...]
            if rest.hasSuffix("/") { rest.removeLast() }
            guard !rest.contains("/"), !rest.contains("@") else { return nil }
            self.init(host: String(rest), defaultPort: defaultPort)
        }

        /// From `host[:port]`, `[v6]` or `[v6]:port`, with `defaultPort` when it names none.
        init?(host text: String, defaultPort: Int) {
            let text = text.trimmingWhitespace().lowercased()
            let name: Substring
            let portText: Substring?
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]") else { return nil }
                name = text[...close]
                let after = text[text.index(after: close)...]
                guard after.isEmpty || after.hasPrefix(":") else { return nil }
                portText = after.isEmpty ? nil : after.dropFirst()
            } else {
                let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                name = parts[0]
                portText = parts.count == 2 ? parts[1] : nil
            }
            guard !name.isEmpty, !name.contains(":") || name.hasPrefix("[") else { return nil }
            if let portText {
                guard let port = Int(portText), (0...65_535).contains(port) else { return nil }
                self.port = port
            } else {
                self.port = defaultPort
            }
            self.host = String(name)
        }
    }
}

extension HTTPField.Name {
    /// `Sec-Fetch-Site`: the browser's word on where a request comes from (Fetch Metadata).
    static let secFetchSite = Self("Sec-Fetch-Site")!
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> String { trimmingCharacters(in: .whitespaces) }
}
