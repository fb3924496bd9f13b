import Foundation
import MarkerKit

/// Fetch → decode → index as one `AsyncSequence`: each refresh trigger is mapped through the
/// three stages into an ``Update`` the service applies (the assignment's Combine pipeline,
/// `publisher.flatMap(fetch).tryMap(decode).map(index)`, in server form).
///
/// Every stage turns failure into a value (``Update/failed(_:)``), so one bad fetch never ends
/// the sequence: the service keeps its last good markers and the next trigger runs again.
struct RefreshPipeline: Sendable {
    /// What a fetch produced, before decoding.
    enum Fetched: Sendable {
        case document(body: MarkerFetcher.Body, validators: MarkerFetcher.Validators, trigger: RefreshTrigger)
        case notModified
        case failed(MarkerServiceError)
    }

    /// A decoded document. The bytes themselves are let go here, except an HTTP body for the disk cache.
    struct Decoded: Sendable {
        var report: DecodeReport
        /// The body to write to the disk cache (HTTP sources only).
        var cacheBody: [UInt8]?
        /// The document's size in bytes.
        var byteCount: Int
        var validators: MarkerFetcher.Validators
        var decodeTime: Duration
    }

    /// A decoded and indexed document, ready to go in service.
    struct Loaded: Sendable {
        var decoded: Decoded
        var index: MarkerIndex
        var indexTime: Duration
    }

    /// The outcome of one trigger.
    enum Update: Sendable {
        case loaded(Loaded)
        case notModified
        case failed(MarkerServiceError)
    }

    let fetcher: MarkerFetcher
    let store: MarkerStore

    /// The updates produced by `triggers`, one per trigger, in order.
    func updates<Triggers: AsyncSequence & Sendable>(
        _ triggers: Triggers
    ) -> some AsyncSequence<Update, Never> where Triggers.Element == RefreshTrigger, Triggers.Failure == Never {
        let fetch = self.fetch
        return
            triggers
            .map { trigger in await fetch(trigger) }
            .map { fetched in await RefreshPipeline.offload { RefreshPipeline.decode(fetched) } }
            .map { decoded in await RefreshPipeline.offload { RefreshPipeline.index(decoded) } }
    }

    /// Runs a CPU-bound stage (a million features take about a second to decode) on swift-nio's thread pool, so
    /// the two threads of Swift's cooperative pool go on answering requests meanwhile; in place if the pool is gone
    /// (shutting down).
    static func offload<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        (try? await BlockingFileIO.run(work)) ?? work()
    }

    /// Stage 1: fetch, conditionally when markers are in service.
    @Sendable func fetch(_ trigger: RefreshTrigger) async -> Fetched {
        let validators = await store.index == nil ? nil : await store.validators
        do {
            switch try await fetcher.fetch(validators: validators) {
            case .notModified:
                return .notModified
            case .document(let body, let etag, let lastModified):
                return .document(
                    body: body, validators: MarkerFetcher.Validators(etag: etag, lastModified: lastModified),
                    trigger: trigger)
            }
        } catch {
            return .failed(error)
        }
    }

    /// Stage 2: decode the document.
    static func decode(_ fetched: Fetched) -> Result<Decoded?, MarkerServiceError> {
        switch fetched {
        case .failed(let error):
            return .failure(error)
        case .notModified:
            return .success(nil)
        case .document(let body, let validators, _):
            let started = ContinuousClock.now
            do {
                let report = try body.decode()
                return .success(
                    Decoded(
                        report: report, cacheBody: body.cacheable, byteCount: body.count, validators: validators,
                        decodeTime: ContinuousClock.now - started))
            } catch {
                let code: MarkerServiceError.Code =
                    error == .notAFeatureCollection ? .notAFeatureCollection : .invalidJSON
                return .failure(MarkerServiceError(code, error.message))
            }
        }
    }

    /// Stage 3: index the accepted markers.
    static func index(_ decoded: Result<Decoded?, MarkerServiceError>) -> Update {
        switch decoded {
        case .failure(let error):
            return .failed(error)
        case .success(nil):
            return .notModified
        case .success(let decoded?):
            let started = ContinuousClock.now
            let index = MarkerIndex(markers: decoded.report.accepted)
            return .loaded(Loaded(decoded: decoded, index: index, indexTime: ContinuousClock.now - started))
        }
    }
}
