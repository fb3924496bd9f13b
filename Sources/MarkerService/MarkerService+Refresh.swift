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
        // Decoded and indexed off the cooperative pool, as the refresh pipeline does.
        guard let report = await RefreshPipeline.offload({ try? entry.body.decode() }) else {
            logger.warning(
                "the cached markers cannot be decoded; ignoring them", metadata: ["markers.source": "\(url)"])
            return
        }
        let index = await RefreshPipeline.offload { MarkerIndex(markers: report.accepted) }
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
        let now = context.clock.date
        switch update {
        case .loaded(let loaded):
            let decoded = loaded.decoded
            let status = await store.load(
                loaded.index, rejected: decoded.report.rejected.count, fromCache: false, updatedAt: now,
                validators: decoded.validators)
            logLoaded(loaded)
            if let cache, case .url(let url) = source, let body = decoded.cacheBody {
                do {
                    try await cache.store(
                        source: url, body: body, etag: decoded.validators.etag,
                        lastModified: decoded.validators.lastModified, fetchedAt: now)
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
            // The count `fail` is about to record: it changes only in the store's load, confirm and fail, which run
            // from here one update at a time (and from the cache restore, before the first).
            let failures = await store.consecutiveFailures + 1
            let (delay, note) = retryDelay(after: error, failures: failures)
            let retryAt = now.addingTimeInterval(delay.inSeconds)
            let status = await store.fail(error, retryAt: retryAt, note: note)
            logger.log(
                level: error.isPermanent ? .error : .warning,
                error.isPermanent
                    ? "fetching the markers failed permanently; next try at the refresh interval"
                    : "fetching the markers failed; retrying with backoff",
                metadata: [
                    "error.code": "\(error.codeName)", "error.message": "\(error.message)",
                    "markers.failure": "\(error.isPermanent ? "permanent" : "transient")",
                    "markers.failures": "\(failures)", "markers.retryIn": "\(Self.secondsText(delay)) s",
                    "markers.retryAt": "\(Timestamp.format(retryAt))", "markers.inService": "\(status.count ?? 0)",
                ])
            await publishStatus(status)
            await scheduler.schedule(after: delay)
        }
    }

    /// When to try again after `failures` consecutive failures, the last one `error`, and the words the status
    /// appends to the error's message.
    ///
    /// A permanent failure (``MarkerServiceError/isPermanent``: too large, not JSON, not a FeatureCollection) would
    /// come back on a quick retry, so the source is fetched again at the refresh interval (never sooner than the
    /// quick backoff would: a refresh interval of 0 must not spin); a transient one on the jittered backoff.
    func retryDelay(after error: MarkerServiceError, failures: Int) -> (delay: Duration, note: String) {
        if error.isPermanent {
            let delay = max(configuration.refreshInterval, retry.ceilingDelay(afterFailures: failures))
            return (
                delay,
                "a permanent failure: the source is fetched again at the refresh interval, in \(Self.secondsText(delay)) s "
                    + "(or at once on markers/cmd/refresh)"
            )
        }
        var generator = SystemRandomNumberGenerator()
        let delay = retry.delay(afterFailures: failures, using: &generator)
        return (delay, "a transient failure: retry \(failures) in \(Self.secondsText(delay)) s")
    }

    /// Seconds for people: whole above 10 s, else two decimals.
    static func secondsText(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        return String(format: seconds >= 10 ? "%.0f" : "%.2f", seconds)
    }

    private func logLoaded(_ loaded: RefreshPipeline.Loaded) {
        let report = loaded.decoded.report
        var metadata: Logger.Metadata = [
            "markers.count": "\(loaded.index.count)", "markers.rejected": "\(report.rejected.count)",
            "markers.bytes": "\(loaded.decoded.byteCount)",
            "markers.decodeSeconds": "\(String(format: "%.3f", loaded.decoded.decodeTime.inSeconds))",
            "markers.indexSeconds": "\(String(format: "%.3f", loaded.indexTime.inSeconds))",
        ]
        for (reason, count) in report.countsByReason {
            metadata["markers.rejected.\(reason.rawValue)"] = "\(count)"
        }
        logger.info("markers loaded", metadata: metadata)
        for rejection in report.rejected.prefix(20) {
            logger.debug(
                "feature rejected",
                metadata: [
                    "feature.index": "\(rejection.index)", "feature.id": "\(rejection.id ?? "-")",
                    "reason": "\(rejection.reason.rawValue)", "detail": "\(rejection.message)",
                ])
        }
    }
}
