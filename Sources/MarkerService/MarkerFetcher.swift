import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Fetches the marker document: over HTTP with AsyncHTTPClient, or from a file.
///
/// The client is configured for an unattended server: connect and read timeouts, an overall
/// deadline, a redirect limit with cycle detection, decompression of gzip/deflate bodies, and no
/// connection retries inside the client (the service's own backoff retries, and reports each
/// failure on the status topic). The body size limit is enforced while the body streams in, so an
/// endless body costs at most the limit in memory.
struct MarkerFetcher: Sendable {
    /// What a fetch produced.
    enum Outcome: Sendable {
        /// A new document, with its validators for the next conditional request.
        case document(body: [UInt8], etag: String?, lastModified: String?)
        /// The server said 304: the document in service is current.
        case notModified
    }

    /// The validators of the document in service.
    struct Validators: Sendable, Equatable {
        var etag: String?
        var lastModified: String?
    }

    let source: MarkerSource
    let configuration: MarkerServiceConfiguration
    let client: HTTPClient

    /// The AsyncHTTPClient configuration for ``configuration``.
    static func clientConfiguration(_ configuration: MarkerServiceConfiguration) -> HTTPClient.Configuration {
        // The browser-like configuration is the one with decompression enabled (ratio-limited
        // against zip bombs); everything else is set here.
        var client = HTTPClient.Configuration.singletonConfiguration
        client.timeout = HTTPClient.Configuration.Timeout(
            connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.readTimeout))
        client.redirectConfiguration =
            configuration.maxRedirects > 0
            ? .follow(max: configuration.maxRedirects, allowCycles: false) : .disallow
        client.connectionPool.retryConnectionEstablishment = false
        client.connectionPool.idleTimeout = .seconds(30)
        return client
    }

    /// Fetches the document, conditionally when `validators` are given.
    func fetch(validators: Validators?) async throws(MarkerServiceError) -> Outcome {
        switch source {
        case .file(let path):
            let body = try await BlockingFileIO.read(path: path, limit: configuration.maxBodyBytes)
            return .document(body: body, etag: nil, lastModified: nil)
        case .url(let url):
            return try await fetch(url: url, validators: validators)
        }
    }

    private func fetch(url: String, validators: Validators?) async throws(MarkerServiceError) -> Outcome {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/geo+json, application/json;q=0.9, */*;q=0.1")
        request.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        request.headers.add(name: "User-Agent", value: "stepcompass-markers")
        if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = validators?.lastModified {
            request.headers.add(name: "If-Modified-Since", value: lastModified)
        }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: TimeAmount(configuration.fetchDeadline))
        } catch {
            throw Self.classify(error, url: url, readingBody: false)
        }
        if response.status == .notModified {
            return .notModified
        }
        guard (200..<300).contains(response.status.code) else {
            throw MarkerServiceError(
                .httpStatus, "HTTP \(response.status.code) \(response.status.reasonPhrase) from \(url)")
        }
        let limit = configuration.maxBodyBytes
        if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > limit {
            throw MarkerServiceError(.tooLarge, "the body is \(declared) bytes, more than the limit of \(limit)")
        }
        var body: [UInt8] = []
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= limit else {
                    throw MarkerServiceError(.tooLarge, "the body is more than the limit of \(limit) bytes")
                }
                body.append(contentsOf: chunk.readableBytesView)
            }
        } catch let error as MarkerServiceError {
            throw error
        } catch {
            throw Self.classify(error, url: url, readingBody: true)
        }
        return .document(
            body: body, etag: response.headers.first(name: "ETag"),
            lastModified: response.headers.first(name: "Last-Modified"))
    }

    /// Maps a client or connection error to the status topic's codes.
    static func classify(_ error: any Error, url: String, readingBody: Bool) -> MarkerServiceError {
        if let error = error as? MarkerServiceError { return error }
        let text = String(describing: error)
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return MarkerServiceError(.timeout, "connecting to \(url) timed out")
            case .readTimeout: return MarkerServiceError(.timeout, "no data from \(url) within the read timeout")
            case .deadlineExceeded: return MarkerServiceError(.timeout, "fetching \(url) took longer than the deadline")
            case .redirectCycleDetected: return MarkerServiceError(.redirectLoop, "the redirects from \(url) loop")
            case .redirectLimitReached:
                return MarkerServiceError(.tooManyRedirects, "more redirects than allowed from \(url)")
            case .remoteConnectionClosed where readingBody:
                return MarkerServiceError(.truncated, "the connection closed before the whole body of \(url) arrived")
            case .bodyLengthMismatch:
                return MarkerServiceError(.truncated, "the body of \(url) is shorter than its Content-Length")
            default: break
            }
        }
        if readingBody {
            return MarkerServiceError(.truncated, "reading the body of \(url) failed: \(text)")
        }
        let lowered = text.lowercased()
        if lowered.contains("refused") || lowered.contains("errno: 111") {
            return MarkerServiceError(.connectionRefused, "connection to \(url) refused")
        }
        if lowered.contains("dns") || lowered.contains("resolve") || lowered.contains("host not found")
            || lowered.contains("name or service not known") || lowered.contains("lookup")
        {
            return MarkerServiceError(.dnsFailure, "cannot resolve the host of \(url): \(text)")
        }
        if lowered.contains("timeout") || lowered.contains("timed out") {
            return MarkerServiceError(.timeout, "fetching \(url) timed out: \(text)")
        }
        return MarkerServiceError(.connectionFailed, "fetching \(url) failed: \(text)")
    }
}
