import Foundation
import ServiceRuntime

/// Who may push: with no token configured, anyone who can reach the loopback listener; otherwise a request
/// must carry the shared token or the device's own token, as an HTTP basic password (any user name), a
/// bearer token, or a `token` query parameter (for apps that cannot set headers).
struct PushAuthorization: Sendable {
    let token: String?
    let deviceTokens: [String: String]

    var isOpen: Bool { token == nil && deviceTokens.isEmpty }

    /// The token a request presents, from its `Authorization` header or `token` query parameter.
    static func presented(authorization: String?, query: String?) -> String? {
        if let authorization {
            if let token = AccessToken.bearer(from: authorization) { return token }
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "basic",
                let data = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
                let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
            {
                return String(text[text.index(after: colon)...])
            }
        }
        return query
    }

    /// Whether `presented` lets `device` push.
    func allows(_ presented: String?, device: String) -> Bool {
        if isOpen { return true }
        guard let presented else { return false }
        if let token, AccessToken.matches(presented, token) { return true }
        if let own = deviceTokens[device], AccessToken.matches(presented, own) { return true }
        return false
    }
}
