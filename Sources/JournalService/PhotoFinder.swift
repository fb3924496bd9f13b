import AsyncHTTPClient
import Foundation
import HTTPFetching
import JournalKit
import Logging
import NIOCore
import NIOHTTP1
import ServiceRuntime

/// Finds the photo of a photo point: searches Flickr (with a key) or Wikimedia Commons, takes the first result not
/// already in the walk whose image downloads, and caches the image.
///
/// Every failure is an ``Outcome``, never a throw: the service keeps the point and retries it later.
/// - A Flickr key that Flickr refuses is logged once, and the journal uses Wikimedia from then on.
/// - Flickr calls are spaced by one token bucket for all devices, under ``JournalConfiguration/flickrCallsPerHour``.
/// - An image that cannot be had (404, too large, not an image) is skipped for the next result.
actor PhotoFinder {
    enum Outcome: Sendable, Equatable {
        case found(PhotoCandidate, file: String)
        /// The services answered and no usable photo is near.
        case none
        /// Try again later: why, and the server's `Retry-After` in seconds when it gave one.
        case failed(String, retryAfter: Double?)
        /// Nothing was asked: the lookup was no longer allowed (the walk stopped, the permission went).
        case withheld
    }

    /// A failed call: why, and how long the server asked to wait.
    struct CallFailure: Error {
        let message: String
        let retryAfter: Double?
        /// The Flickr key was refused.
        var invalidKey = false
        /// Flickr answered with an error that retrying will not mend (method not found, a bad argument).
        var misconfigured = false
        /// Whether trying again later may succeed (a network failure, a 5xx, a 429) rather than never (a 404, an
        /// image too large or not an image).
        var retryable = true
        /// The lookup was no longer allowed; nothing was sent.
        var withheld = false
    }

    private let configuration: JournalConfiguration
    private let client: HTTPClient
    private let cache: ImageCache
    private let logger: Logger
    /// The service's clock: the Flickr call budget, `Retry-After` waits.
    private let clock: ServiceClock
    private var flickrKey: String?
    private var loggedMisconfiguration: String?
    private var bucket: TokenBucket
    /// No search before this moment (seconds since 1970): a search service answered 429 or 503 with `Retry-After`,
    /// which asks every caller to wait, not only the point that got it.
    private var notBefore: Double = 0
    /// The most results tried for one point before giving up for now.
    static let maximumImageTries = 5

    init(configuration: JournalConfiguration, client: HTTPClient, cache: ImageCache, logger: Logger, clock: ServiceClock) {
        self.configuration = configuration
        self.client = client
        self.cache = cache
        self.logger = logger
        self.clock = clock
        self.flickrKey = configuration.flickrKey
        self.bucket = TokenBucket.perHour(configuration.flickrCallsPerHour, now: clock.date.timeIntervalSince1970)
    }

    /// Which service searches now.
    var source: PhotoSourceKind { flickrKey == nil ? .wikimedia : .flickr }

    /// Finds a photo near `point` that is not in `used`; `allowed` is asked before every request (a walk that
    /// stopped, or a permission withdrawn while waiting, sends nothing more).
    func find(
        near point: GeoCoordinate, excluding used: Set<String>, allowed: @Sendable () async -> Bool = { true }
    ) async -> Outcome {
        var excluded = used
        var lastImageFailure: String?
        var retryableImageFailure = false
        for radius in [configuration.searchRadius, configuration.wideSearchRadius] {
            let candidates: [PhotoCandidate]
            do {
                candidates = try await search(near: point, radius: radius, allowed: allowed)
            } catch {
                if error.withheld { return .withheld }
                return .failed(error.message, retryAfter: error.retryAfter)
            }
            var tries = 0
            while tries < Self.maximumImageTries, let candidate = PhotoChooser.choose(candidates, excluding: excluded) {
                tries += 1
                excluded.insert(candidate.id)
                if let file = await cache.file(for: candidate.id) { return .found(candidate, file: file) }
                guard await allowed() else { return .withheld }
                do {
                    let file = try await download(candidate)
                    return .found(candidate, file: file)
                } catch {
                    lastImageFailure = error.message
                    retryableImageFailure = retryableImageFailure || error.retryable
                    logger.debug(
                        "an image could not be had; trying the next result",
                        metadata: [
                            "journal.photo": "\(candidate.id)", "error": "\(error.message)",
                        ])
                }
            }
            if tries > 0 { break }  // results there, none usable now: no wider search
        }
        // A photo whose image could not be had for a passing reason: try the point again later, not "none".
        if let lastImageFailure, retryableImageFailure { return .failed(lastImageFailure, retryAfter: nil) }
        if let lastImageFailure { logger.info("no usable image near a point", metadata: ["error": "\(lastImageFailure)"]) }
        return .none
    }

    /// One search, Flickr when a key is in use (falling back to Wikimedia when Flickr refuses the key).
    private func search(
        near point: GeoCoordinate, radius: Int, allowed: @Sendable () async -> Bool
    ) async throws(CallFailure) -> [PhotoCandidate] {
        let now = clock.date.timeIntervalSince1970
        if now < notBefore {
            throw CallFailure(message: "the photo service asked to wait (Retry-After)", retryAfter: notBefore - now)
        }
        if let key = flickrKey {
            do {
                return try await searchFlickr(key: key, near: point, radius: radius, allowed: allowed)
            } catch  where error.invalidKey {
                if flickrKey != nil {
                    flickrKey = nil
                    logger.error(
                        "Flickr refused the API key; using Wikimedia Commons from now on (check --flickr-key)",
                        metadata: [
                            "error": "\(error.message)"
                        ])
                }
            } catch  where error.misconfigured {
                // Flickr answered, but not to this search (a wrong --flickr-url, a method it does not know): this
                // lookup asks Wikimedia instead; Flickr is tried again for the next one.
                if loggedMisconfiguration != error.message {
                    loggedMisconfiguration = error.message
                    logger.error(
                        "Flickr cannot answer the search; asking Wikimedia Commons instead (check --flickr-url)",
                        metadata: [
                            "error": "\(error.message)"
                        ])
                }
            }
        }
        guard await allowed() else { throw CallFailure(message: "withheld", retryAfter: nil, withheld: true) }
        let items = WikimediaSearch.queryItems(near: point, radius: radius)
        let body = try await get(Self.url(configuration.wikimediaURL, items), limit: configuration.maximumResponseBytes, accept: Self.searchAccept)
        do {
            return try WikimediaSearch.parse(Data(body))
        } catch {
            throw CallFailure(message: "Wikimedia Commons: \(error.description)", retryAfter: nil)
        }
    }

    private func searchFlickr(
        key: String, near point: GeoCoordinate, radius: Int, allowed: @Sendable () async -> Bool
    ) async throws(CallFailure) -> [PhotoCandidate] {
        while true {
            let now = clock.date.timeIntervalSince1970
            let wait = bucket.take(now: now)
            if wait <= 0 { break }
            do {
                try await clock.sleep(for: .milliseconds(Int64((wait * 1_000).rounded(.up))))
            } catch {
                throw CallFailure(message: "cancelled", retryAfter: nil)
            }
        }
        // Asked after the wait for a token, which may have been long.
        guard await allowed() else { throw CallFailure(message: "withheld", retryAfter: nil, withheld: true) }
        let items = FlickrSearch.queryItems(apiKey: key, near: point, radiusKilometres: Double(radius) / 1_000)
        let body = try await get(Self.url(configuration.flickrURL, items), limit: configuration.maximumResponseBytes, accept: Self.searchAccept)
        do {
            return try FlickrSearch.parse(Data(body))
        } catch {
            switch error {
            case .invalidKey: throw CallFailure(message: "Flickr: \(error.description)", retryAfter: nil, invalidKey: true)
            case .serviceError(_, _, retryable: false):
                throw CallFailure(message: "Flickr: \(error.description)", retryAfter: nil, misconfigured: true)
            default: throw CallFailure(message: "Flickr: \(error.description)", retryAfter: nil)
            }
        }
    }

    /// Downloads a photo's image into the cache.
    private func download(_ candidate: PhotoCandidate) async throws(CallFailure) -> String {
        let bytes = try await get(candidate.imageURL, limit: configuration.maximumImageBytes, accept: "image/*")
        guard let kind = ImageKind(magic: bytes) else {
            throw CallFailure(message: "\(candidate.imageURL) is not a JPEG, PNG, GIF or WebP image", retryAfter: nil, retryable: false)
        }
        do {
            return try await cache.store(bytes, for: candidate.id, kind: kind)
        } catch {
            throw CallFailure(message: "the image cache cannot write \(candidate.id): \(error)", retryAfter: 60)
        }
    }

    /// A GET with the journal's User-Agent, timeouts and size limit.
    private func get(_ url: String, limit: Int, accept: String) async throws(CallFailure) -> [UInt8] {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        request.headers.add(name: "Accept", value: accept)
        let shown = Self.redacted(url)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: TimeAmount(configuration.requestTimeout))
        } catch {
            throw CallFailure(message: HTTPFetchFailure.classify(error, url: shown, readingBody: false).message, retryAfter: nil)
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            let now = clock.date.timeIntervalSince1970
            let retryAfter = response.headers.first(name: "Retry-After").flatMap { RetryAfter.seconds($0, now: now) }
            if let retryAfter, accept == Self.searchAccept {
                // The service asks every caller to wait, not only this point.
                notBefore = max(notBefore, now + min(retryAfter, 3_600))
            }
            // 408, 429 and 5xx pass; another 4xx (404, 410, 403) will not mend by waiting.
            let passing = status == 408 || status == 429 || status >= 500
            throw CallFailure(
                message: "HTTP \(status) \(response.status.reasonPhrase) from \(shown)", retryAfter: retryAfter, retryable: passing)
        }
        do {
            return try await response.boundedBody(limit: limit, url: shown)
        } catch {
            throw CallFailure(message: error.message, retryAfter: nil, retryable: error.kind != .tooLarge)
        }
    }

    /// The Accept header of searches.
    static let searchAccept = "application/json"

    /// `base?name=value&...`, percent-encoded.
    static func url(_ base: String, _ items: [(name: String, value: String)]) -> String {
        var components = URLComponents(string: base) ?? URLComponents()
        components.queryItems = (components.queryItems ?? []) + items.map { URLQueryItem(name: $0.name, value: $0.value) }
        // `+` is a space to many servers: encode it (and `|` for strictness).
        return (components.url?.absoluteString ?? base).replacingOccurrences(of: "+", with: "%2B")
    }

    /// A URL without its query, for logs and messages: short, and never the Flickr key (a secret).
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "the photo service" }
        components.query = nil
        components.user = nil
        components.password = nil
        return components.url?.absoluteString ?? "the photo service"
    }
}
