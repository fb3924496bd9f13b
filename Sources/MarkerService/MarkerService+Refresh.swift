import Bus
import Foundation
import Logging
import MarkerKit
import ServiceRuntime

extension MarkerService {
    /// Puts the disk cache's document in service, if there is one, with `fromCache: true`.
    func restoreFromCache() async {
        guard let cache, case .url(let url) = source,
            let entry = await cache.load(source: url, limit: configuration.maxBodyBytes)
        else { return }
        guard let report = try? MarkerCollectionDecoder().decode(entry.body) else {
            logger.warning(
                "the cached markers cannot be decoded; ignoring them", metadata: ["markers.source": "\(url)"])
            return
        }
        let index = MarkerIndex(markers: report.accepted)
        let status = await store.load(
            index, rejected: report.rejected.count, fromCache: true, updatedAt: entry.metadata.fetchedAt,
            validators: MarkerFetcher.Validators(etag: entry.metadata.etag, lastModified: entry.metadata.lastModified))
        logger.info(
            "markers restored from the disk cache",
            metadata: [
                "markers.count": "\(index.count)", "markers.fetchedAt": "\(Timestamp.format(entry.metadata.fetchedAt))",
            ])
        await publishCollection(index)
        await publishStatus(status)
    }

    /// Applies one pipeline outcome: state, status, collection, cache, nearby lists, next refresh.
    func apply(_ update: RefreshPipeline.Update, scheduler: RefreshScheduler) async {
        // A fetch cut short by shutdown is not a failure of the source.
        guard !Task.isCancelled else { return }
        let now = Date()
        switch update {
        case .loaded(let loaded):
            let status = await store.load(
                loaded.index, rejected: loaded.report.rejected.count, fromCache: false, updatedAt: now,
                validators: loaded.validators)
            logLoaded(loaded)
            if let cache, case .url(let url) = source {
                do {
                    try await cache.store(
                        source: url, body: loaded.body, etag: loaded.validators.etag,
                        lastModified: loaded.validators.lastModified, fetchedAt: now)
                } catch {
                    logger.warning("could not write the marker cache", metadata: ["error": "\(error)"])
                }
            }
            await publishCollection(loaded.index)
            await publishStatus(status)
            await republishNearby()
            await scheduler.schedule(after: configuration.refreshInterval)
        case .notModified:
            let status = await store.confirm(at: now)
            logger.info("markers not modified (304)", metadata: ["markers.count": "\(status.count ?? 0)"])
            await publishStatus(status)
            await scheduler.schedule(after: configuration.refreshInterval)
        case .failed(let error):
            metrics.fetchFailed(code: error.codeName)
            let (_, failures) = await store.fail(error)
            var generator = SystemRandomNumberGenerator()
            let delay = retry.delay(afterFailures: failures, using: &generator)
            let status = await store.setRetry(at: now.addingTimeInterval(delay.inSeconds))
            logger.warning(
                "fetching the markers failed",
                metadata: [
                    "error.code": "\(error.codeName)", "error.message": "\(error.message)",
                    "markers.failures": "\(failures)", "markers.retryIn": "\(delay)",
                    "markers.inService": "\(status.count ?? 0)",
                ])
            await publishStatus(status)
            await scheduler.schedule(after: delay)
        }
    }

    private func logLoaded(_ loaded: RefreshPipeline.Loaded) {
        var metadata: Logger.Metadata = [
            "markers.count": "\(loaded.index.count)", "markers.rejected": "\(loaded.report.rejected.count)",
            "markers.bytes": "\(loaded.body.count)",
        ]
        for (reason, count) in loaded.report.countsByReason {
            metadata["markers.rejected.\(reason.rawValue)"] = "\(count)"
        }
        logger.info("markers loaded", metadata: metadata)
        for rejection in loaded.report.rejected.prefix(20) {
            logger.debug(
                "feature rejected",
                metadata: [
                    "feature.index": "\(rejection.index)", "feature.id": "\(rejection.id ?? "-")",
                    "reason": "\(rejection.reason.rawValue)", "detail": "\(rejection.message)",
                ])
        }
    }
}
