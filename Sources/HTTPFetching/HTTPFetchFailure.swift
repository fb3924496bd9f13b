public import AsyncHTTPClient

/// Why an HTTP fetch failed, in the words the services publish: a stable ``Kind`` and a sentence for people.
///
/// The marker and journal services fetch from servers that fail in every way a network does; this is their one
/// classification of those failures.
public struct HTTPFetchFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable kinds (the raw values are the codes the services publish).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case connectionRefused, dnsFailure, connectionFailed, timeout, redirectLoop, tooManyRedirects
        case truncated, tooLarge
    }

    public let kind: Kind
    /// What failed and, where known, why.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// Maps a client or connection error of a fetch of `url` to a failure.
    /// - Parameter readingBody: Whether the error came while the body was streaming in (a closed connection then
    ///   means a truncated body).
    public static func classify(_ error: any Error, url: String, readingBody: Bool) -> HTTPFetchFailure {
        if let error = error as? HTTPFetchFailure { return error }
        let text = String(describing: error)
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return HTTPFetchFailure(.timeout, "connecting to \(url) timed out")
            case .readTimeout: return HTTPFetchFailure(.timeout, "\(url) timed out: no data within the read timeout")
            case .deadlineExceeded: return HTTPFetchFailure(.timeout, "fetching \(url) timed out: it took longer than the deadline")
            case .redirectCycleDetected: return HTTPFetchFailure(.redirectLoop, "the redirects from \(url) loop")
            case .redirectLimitReached: return HTTPFetchFailure(.tooManyRedirects, "more redirects than allowed from \(url)")
            case .remoteConnectionClosed where readingBody:
                return HTTPFetchFailure(.truncated, "the connection closed before the whole body of \(url) arrived")
            case .remoteConnectionClosed:
                return HTTPFetchFailure(.connectionFailed, "\(url) closed the connection without an answer")
            case .bodyLengthMismatch:
                return HTTPFetchFailure(.truncated, "the body of \(url) is shorter than its Content-Length")
            default: break
            }
        }
        if readingBody {
            return HTTPFetchFailure(.truncated, "reading the body of \(url) failed: \(text)")
        }
        let lowered = text.lowercased()
        if lowered.contains("refused") || lowered.contains("errno: 111") {
            return HTTPFetchFailure(.connectionRefused, "connection to \(url) refused")
        }
        if lowered.contains("dns") || lowered.contains("resolve") || lowered.contains("host not found")
            || lowered.contains("name or service not known") || lowered.contains("lookup")
        {
            return HTTPFetchFailure(.dnsFailure, "cannot resolve the host of \(url): \(text)")
        }
        if lowered.contains("timeout") || lowered.contains("timed out") {
            return HTTPFetchFailure(.timeout, "fetching \(url) timed out: \(text)")
        }
        return HTTPFetchFailure(.connectionFailed, "fetching \(url) failed: \(text)")
    }
}
