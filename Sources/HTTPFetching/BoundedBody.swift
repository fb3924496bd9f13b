public import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension HTTPClientResponse {
    /// Reads the body, refusing one larger than `limit` bytes as soon as it is: by its `Content-Length`, or while it
    /// streams in, so an endless body costs at most the limit in memory.
    /// - Throws: ``HTTPFetchFailure`` (``HTTPFetchFailure/Kind/tooLarge`` or a classified read error).
    public func boundedBody(limit: Int, url: String) async throws(HTTPFetchFailure) -> [UInt8] {
        if let declared = headers.first(name: "Content-Length").flatMap(Int.init), declared > limit {
            throw HTTPFetchFailure(.tooLarge, "the body of \(url) is \(declared) bytes, more than the limit of \(limit)")
        }
        var body: [UInt8] = []
        do {
            for try await chunk in self.body {
                guard body.count + chunk.readableBytes <= limit else {
                    throw HTTPFetchFailure(.tooLarge, "the body of \(url) is more than the limit of \(limit) bytes")
                }
                body.append(contentsOf: chunk.readableBytesView)
            }
        } catch {
            throw HTTPFetchFailure.classify(error, url: url, readingBody: true)
        }
        return body
    }
}
