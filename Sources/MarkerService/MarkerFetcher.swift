import AsyncHTTPClient
import Foundation
import HTTPFetching
import MarkerKit
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
        case document(body: Body, etag: String?, lastModified: String?)
        /// The server said 304: the document in service is current.
        case notModified
    }

    /// A fetched document's bytes, not yet decoded.
    enum Body: Sendable {
        /// An HTTP body (at most `--max-body` bytes), kept after decoding for the disk cache.
        case http([UInt8])
        /// A file source (at most `--max-file-size` bytes), in memory of its own that decoding gives back.
        case file(FileDocument)

        /// The document's size in bytes.
        var count: Int {
            switch self {
            case .http(let bytes): bytes.count
            case .file(let document): document.count
            }
        }

        /// What the disk cache stores: an HTTP body; a file source is not cached (it is on disk already).
        var cacheable: [UInt8]? {
            if case .http(let bytes) = self { return bytes }
            return nil
        }

        /// Decodes the document (a file source's once only: see ``FileDocument/decode()``).
        func decode() throws(MarkerDecodingError) -> DecodeReport {
            switch self {
            case .http(let bytes): try MarkerCollectionDecoder().decode(bytes)
            case .file(let document): try document.decode()
            }
        }
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
            // A local file has its own limit, not the HTTP body's: its size is known before it is read.
            let limit = configuration.maxFileBytes
            do {
                let document = try await BlockingFileIO.run { try FileDocument.read(path: path, limit: limit) }
                return .document(body: .file(document), etag: nil, lastModified: nil)
            } catch let error as MarkerServiceError {
                throw error
            } catch {
                throw MarkerServiceError(.fileError, "cannot read '\(path)': \(error)")
            }
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
        let body: [UInt8]
        do {
            body = try await response.boundedBody(limit: configuration.maxBodyBytes, url: url)
        } catch {
            throw Self.classify(error, url: url, readingBody: true)
        }
        return .document(
            body: .http(body), etag: response.headers.first(name: "ETag"),
            lastModified: response.headers.first(name: "Last-Modified"))
    }

    /// Maps a client or connection error to the status topic's codes (the shared ``HTTPFetchFailure`` kinds have the
    /// same names).
    static func classify(_ error: any Error, url: String, readingBody: Bool) -> MarkerServiceError {
        if let error = error as? MarkerServiceError { return error }
        let failure = HTTPFetchFailure.classify(error, url: url, readingBody: readingBody)
        return MarkerServiceError(MarkerServiceError.Code(rawValue: failure.kind.rawValue) ?? .fetchFailed, failure.message)
    }
}
