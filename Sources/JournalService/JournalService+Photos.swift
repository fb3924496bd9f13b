import Bus
import Foundation
import JournalKit
import JournalStore
import Logging
import Metrics
import ServiceRuntime

extension JournalService {
    /// A lookup to run: the walk's first due point.
    struct Lookup: Sendable {
        let device: String
        let point: WalkPhotoPoint
        let used: Set<String>
    }

    /// Runs lookups as points fall due, at most ``JournalConfiguration/concurrentLookups`` at once and one per walk,
    /// until the task is cancelled.
    func lookUpPhotos() async {
        let finder = self.finder
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let jobs = takeDue(now: context.clock.date.timeIntervalSince1970, limit: configuration.concurrentLookups - inFlight.count)
                for job in jobs {
                    group.addTask {
                        // Asked again before every request: a walk stopped or a permission withdrawn while the lookup
                        // waits (for a Flickr token, a slow server) sends nothing more.
                        let outcome = await finder.find(near: job.point.point.coordinate, excluding: job.used) {
                            await self.mayLookUp(walk: job.point.walk, device: job.device)
                        }
                        await self.complete(job.point, device: job.device, outcome)
                    }
                }
                // Until a lookup ends, a point is queued, or the next retry falls due (at most a second).
                await wake.wait(atMost: nextDueDelay(now: context.clock.date.timeIntervalSince1970), on: context.clock)
            }
            group.cancelAll()
        }
    }

    /// Whether a lookup for `walk` may still ask a photo service: the walk is on and its device records.
    func mayLookUp(walk: String, device: String) -> Bool {
        walkDevices[walk] == device && devices[device]?.recording == true
    }

    /// A walk's queue in lookup order: due first (no retry time, or the earliest), then by index.
    static func queueOrder(_ points: [WalkPhotoPoint]) -> [WalkPhotoPoint] {
        points.sorted { ($0.nextAttempt ?? 0, $0.point.index) < ($1.nextAttempt ?? 0, $1.point.index) }
    }

    /// The due points, one per walk not already looked up, whose device records now; the walks whose due point was
    /// reached first go first, so no walk waits for ever when lookups are scarce (a Flickr allowance).
    func takeDue(now: Double, limit: Int) -> [Lookup] {
        guard limit > 0 else { return [] }
        var candidates: [(device: String, point: WalkPhotoPoint)] = []
        for (walk, points) in queue where !inFlight.contains(walk) {
            guard let first = points.first, (first.nextAttempt ?? 0) <= now else { continue }
            guard let device = walkDevices[walk], devices[device]?.recording == true else { continue }
            candidates.append((device, first))
        }
        candidates.sort { ($0.point.nextAttempt ?? $0.point.point.time) < ($1.point.nextAttempt ?? $1.point.point.time) }
        return candidates.prefix(limit).map { candidate in
            inFlight.insert(candidate.point.walk)
            return Lookup(device: candidate.device, point: candidate.point, used: usedPhotos[candidate.point.walk] ?? [])
        }
    }

    /// Seconds until the next pending point of a recording walk falls due (at most 1 s: a permission may change
    /// meanwhile, and that wakes the loop too).
    func nextDueDelay(now: Double) -> Duration {
        var earliest = 1.0
        for (walk, points) in queue where !inFlight.contains(walk) {
            guard let device = walkDevices[walk], devices[device]?.recording == true, let first = points.first else { continue }
            guard let next = first.nextAttempt else { return .milliseconds(50) }
            earliest = min(earliest, max(0.01, next - now))
        }
        return .milliseconds(Int64(earliest * 1_000))
    }

    /// Stores a lookup's outcome, publishes it, and requeues a failed point with its backoff.
    ///
    /// Everything in memory (the queue, the walk's photos, the per-walk slot) is settled before the first await, so
    /// the walk's next lookup can never start on the same point or with an out-of-date list of its photos.
    func complete(_ job: WalkPhotoPoint, device: String, _ outcome: PhotoFinder.Outcome) async {
        var point = job
        let now = context.clock.date.timeIntervalSince1970
        let outcomeName: String
        switch outcome {
        case .found(let photo, let file):
            outcomeName = "found"
            point.attempts += 1
            point.status = .found
            point.photo = photo
            point.cachedFile = file
            point.nextAttempt = nil
            point.lastError = nil
        case .none:
            outcomeName = "none"
            point.attempts += 1
            point.status = .none
            point.nextAttempt = nil
            point.lastError = nil
        case .failed(let message, let retryAfter):
            outcomeName = "failed"
            point.attempts += 1
            point.status = .pending
            point.lastError = message
            point.nextAttempt = now + configuration.retry.delay(afterAttempts: point.attempts, retryAfter: retryAfter)
            logFailure(message, point: point)
        case .withheld:
            // The walk stopped or the permission went while waiting: nothing was asked; the point stays as it was.
            outcomeName = "withheld"
        }
        context.metrics.counter("stepcompass_journal_photo_lookups_total", "outcome", outcomeName).increment()
        // The queue: the point leaves it unless it is to be retried.
        if var points = queue[job.walk], let index = points.firstIndex(where: { $0.point.index == job.point.index }) {
            if point.status == .pending {
                points[index] = point
                points = Self.queueOrder(points)
            } else {
                points.remove(at: index)
            }
            queue[job.walk] = points.isEmpty ? nil : points
        }
        // The walk may have stopped meanwhile: the outcome is stored and published all the same.
        if point.status == .found, let id = point.photo?.id, walkDevices[job.walk] != nil {
            usedPhotos[job.walk, default: []].insert(id)
            devices[device]?.walk?.photos += 1
            changed.insert(device)
        }
        inFlight.remove(job.walk)
        wake.signal()
        if case .withheld = outcome { return }
        do {
            let stored = point
            try await retrying("store a photo point") { try await self.store.update(stored) }
        } catch {
            context.logger.warning("could not store a photo point", metadata: ["journal.walk": "\(point.walk)", "error": "\(error)"])
        }
        do {
            let payload = try JSONEncoder.journal.encode(JournalPhotoPoint(point, urlPrefix: configuration.photoURLPrefix))
            try await context.bus.publish(BusMessage(topic: context.topics.device(device, .journalPhoto), payload: payload, qos: .atLeastOnce))
        } catch {
            context.logger.warning("could not publish a photo point", metadata: ["device": "\(device)", "error": "\(error)"])
        }
    }

    /// Logs a failed lookup: at warning when the reason changed or a minute passed, else at debug (500 walkers
    /// offline must not flood the log).
    private func logFailure(_ message: String, point: WalkPhotoPoint) {
        let now = ContinuousClock.now
        let metadata: Logger.Metadata = [
            "journal.walk": "\(point.walk)", "journal.point": "\(point.point.index)", "error": "\(message)",
            "journal.retryAt": "\(point.nextAttempt.map { Timestamp.format(Date(timeIntervalSince1970: $0)) } ?? "")",
        ]
        if let last = lastFailureLog, last.message == message, now < last.at.advanced(by: .seconds(60)) {
            context.logger.debug("photo lookup failed; the point is kept and retried", metadata: metadata)
            return
        }
        lastFailureLog = (message, now)
        context.logger.warning("the photo service is unreachable or failing; the route is kept and the point retried", metadata: metadata)
    }
}
