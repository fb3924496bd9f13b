/// Why a photo search's response could not be used.
public enum PhotoSearchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The API key was refused (Flickr error 100); the text is the service's message. Retrying will not help.
    case invalidKey(String)
    /// The service answered with an error `code` and `message`; `retryable` when it is temporary (rate limits,
    /// maintenance, a search backend that is down).
    case serviceError(code: String, message: String, retryable: Bool)
    /// The response is not what the service documents; the text is a complete explanation, such as
    /// `the response is not JSON: <html>…` (quoting at most 100 characters of the body), and is the description.
    case malformed(String)

    /// Whether trying again later may succeed: true for temporary service errors and for malformed responses
    /// (often a proxy's error page or a truncated transfer), false for an invalid key and other service errors.
    public var isRetryable: Bool {
        switch self {
        case .invalidKey: false
        case .serviceError(_, _, let retryable): retryable
        case .malformed: true
        }
    }

    /// A sentence fragment for logs and for a photo point's last error.
    public var description: String {
        switch self {
        case .invalidKey(let message):
            "the Flickr API key is not valid: \(message)"
        case .serviceError(let code, let message, let retryable):
            "the photo service answered with error \(code): \(message)" + (retryable ? " (temporary)" : "")
        case .malformed(let explanation):
            explanation
        }
    }

    /// At most `limit` characters of a response body, whitespace collapsed, for an error message
    /// (`(an empty body)` when there is nothing).
    static func preview(_ bytes: some Collection<UInt8>, limit: Int = 100) -> String {
        let text = HTMLText.collapseWhitespace(String(decoding: bytes.prefix(limit * 4), as: UTF8.self))
        if text.isEmpty { return "(an empty body)" }
        return text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    /// A ``malformed(_:)`` for a body that does not parse as JSON.
    static func notJSON(_ bytes: some Collection<UInt8>) -> PhotoSearchError {
        .malformed("the response is not JSON: \(preview(bytes))")
    }
}
