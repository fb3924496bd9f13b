import Foundation

/// Comparing a presented secret with the configured one: the bridge's push tokens and the dashboard's access token.
public enum AccessToken {
    /// Whether `presented` equals `expected`, in time that depends only on their lengths (not on where they first
    /// differ, which would let a caller guess a token byte by byte from the response times).
    public static func matches(_ presented: String, _ expected: String) -> Bool {
        let x = Array(presented.utf8)
        let y = Array(expected.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// The token of an `Authorization: Bearer TOKEN` header value (the scheme in any case, spaces trimmed), nil for
    /// another scheme.
    public static func bearer(from authorization: String) -> String? {
        let parts = authorization.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }
}
