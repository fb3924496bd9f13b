/// Why a marker fetch, or the service's configuration, failed: the `error` of the status topic.
///
/// A struct over a private code (the project's one-error-type-per-module rule), so codes can be
/// added without breaking callers. ``codeName`` is the stable `error.code` published on
/// `stepcompass/markers/status`; ``message`` is detail for people.
public struct MarkerServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: String, Sendable, Hashable {
        case invalidConfiguration
        case connectionRefused
        case dnsFailure
        case connectionFailed
        case timeout
        case httpStatus
        case redirectLoop
        case tooManyRedirects
        case truncated
        case tooLarge
        case invalidJSON
        case notAFeatureCollection
        case fileError
        case fetchFailed
    }

    let code: Code
    /// A sentence for people: what failed and, where known, why.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The stable code published as `error.code`, e.g. `timeout`, `httpStatus`, `tooLarge`.
    public var codeName: String { code.rawValue }

    /// Whether fetching the same source again soon would fail the same way: the document is larger than the limit
    /// (`tooLarge`), not JSON (`invalidJSON`), or JSON but not a FeatureCollection (`notAFeatureCollection`). Only a
    /// new document can change that, so the service tries again at the refresh interval, not on the quick backoff
    /// (or at once on `markers/cmd/refresh`, for whoever just fixed the source).
    ///
    /// Everything else is transient and retried quickly with backoff: a refused or failed connection, a timeout,
    /// an HTTP error status (a 5xx is a server in trouble; a 404 is as often a deployment in progress), a truncated
    /// body, redirect trouble, and a file that is missing or unreadable (`fileError`: a mounted volume or a deploy
    /// step that writes the file may still be on its way, and a file costs nothing to look at again; the backoff
    /// tops out at `--retry-max`).
    public var isPermanent: Bool {
        switch code {
        case .tooLarge, .invalidJSON, .notAFeatureCollection: true
        default: false
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// A configuration value is missing or out of range.
    public static let invalidConfiguration = MarkerServiceError(.invalidConfiguration, "invalid configuration")
    /// The server refused the connection.
    public static let connectionRefused = MarkerServiceError(.connectionRefused, "connection refused")
    /// The host name could not be resolved.
    public static let dnsFailure = MarkerServiceError(.dnsFailure, "host name not resolved")
    /// The connection failed for another reason.
    public static let connectionFailed = MarkerServiceError(.connectionFailed, "connection failed")
    /// A connect, read or overall deadline passed.
    public static let timeout = MarkerServiceError(.timeout, "timed out")
    /// The server answered with an error status.
    public static let httpStatus = MarkerServiceError(.httpStatus, "HTTP error status")
    /// The redirects went round in a loop.
    public static let redirectLoop = MarkerServiceError(.redirectLoop, "redirect loop")
    /// More redirects than allowed.
    public static let tooManyRedirects = MarkerServiceError(.tooManyRedirects, "too many redirects")
    /// The body ended before its declared length, or the connection dropped while reading it.
    public static let truncated = MarkerServiceError(.truncated, "truncated body")
    /// The body is larger than the limit.
    public static let tooLarge = MarkerServiceError(.tooLarge, "body too large")
    /// The body is not valid JSON.
    public static let invalidJSON = MarkerServiceError(.invalidJSON, "invalid JSON")
    /// The body is JSON but not a GeoJSON FeatureCollection.
    public static let notAFeatureCollection = MarkerServiceError(.notAFeatureCollection, "not a FeatureCollection")
    /// A file source could not be read.
    public static let fileError = MarkerServiceError(.fileError, "file error")
    /// Any other fetch failure.
    public static let fetchFailed = MarkerServiceError(.fetchFailed, "fetch failed")

    /// Errors are equal when their codes are; the message is detail for people.
    public static func == (lhs: MarkerServiceError, rhs: MarkerServiceError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
