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
        case document(body: [UInt8], validators: MarkerFetcher.Validators, trigger: RefreshTrigger)
        case notModified
        case failed(MarkerServiceError)
    }

    /// A decoded document.
    struct Decoded: Sendable {
        var report: DecodeReport
        var body: [UInt8]
        var validators: MarkerFetcher.Validators
    }

    /// A decoded and indexed document, ready to go in service.
    struct Loaded: Sendable {
        var index: MarkerIndex
        var report: DecodeReport
        var body: [UInt8]
        var validators: MarkerFetcher.Validators
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
            .map { fetched in RefreshPipeline.decode(fetched) }
            .map { decoded in RefreshPipeline.index(decoded) }
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
            do {
                let report = try MarkerCollectionDecoder().decode(body)
                return .success(Decoded(report: report, body: body, validators: validators))
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
            return .loaded(
                Loaded(
                    index: MarkerIndex(markers: decoded.report.accepted), report: decoded.report,
                    body: decoded.body, validators: decoded.validators))
        }
    }
}
