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
                let jobs = takeDue(now: Date().timeIntervalSince1970, limit: configuration.concurrentLookups - inFlight.count)
                for job in jobs {
                    group.addTask {
                        let outcome = await finder.find(near: job.point.point.coordinate, excluding: job.used)
                        await self.complete(job.point, device: job.device, outcome)
                    }
                }
                // Until a lookup ends, a point is queued, or the next retry falls due (at most a second).
                await wake.wait(atMost: nextDueDelay(now: Date().timeIntervalSince1970))
            }
            group.cancelAll()
        }
    }

    /// The due points, one per walk not already looked up, whose device records now.
    func takeDue(now: Double, limit: Int) -> [Lookup] {
        guard limit > 0 else { return [] }
        var jobs: [Lookup] = []
        for (walk, points) in queue where !inFlight.contains(walk) {
            guard let first = points.first, (first.nextAttempt ?? 0) <= now else { continue }
            guard let device = walkDevices[walk], devices[device]?.recording == true else { continue }
            inFlight.insert(walk)
            jobs.append(Lookup(device: device, point: first, used: usedPhotos[walk] ?? []))
            if jobs.count == limit { break }
        }
        return jobs
    }

    /// Seconds until the next pending point falls due (at most 1 s: a permission may change meanwhile).
    func nextDueDelay(now: Double) -> Duration {
        var earliest = 1.0
        for (walk, points) in queue where !inFlight.contains(walk) {
            guard let next = points.first?.nextAttempt else { return .milliseconds(50) }
            earliest = min(earliest, max(0.01, next - now))
        }
        return .milliseconds(Int64(earliest * 1_000))
    }

    /// Stores a lookup's outcome, publishes it, and requeues a failed point with its backoff.
    func complete(_ job: WalkPhotoPoint, device: String, _ outcome: PhotoFinder.Outcome) async {
        inFlight.remove(job.walk)
        var point = job
        point.attempts += 1
        let now = Date().timeIntervalSince1970
        let outcomeName: String = switch outcome {
        case .found: "found"
        case .none: "none"
        case .failed: "failed"
        }
        Counter(label: "stepcompass_journal_photo_lookups_total", dimensions: [("service", context.service), ("outcome", outcomeName)]).increment()
        switch outcome {
        case .found(let photo, let file):
            point.status = .found
            point.photo = photo
            point.cachedFile = file
            point.nextAttempt = nil
            point.lastError = nil
        case .none:
            point.status = .none
            point.nextAttempt = nil
            point.lastError = nil
        case .failed(let message, let retryAfter):
            point.status = .pending
            point.lastError = message
            point.nextAttempt = now + configuration.retry.delay(afterAttempts: point.attempts, retryAfter: retryAfter)
            logFailure(message, point: point)
        }
        do {
            let stored = point
            try await retrying("store a photo point") { try await self.store.update(stored) }
        } catch {
            context.logger.warning("could not store a photo point", metadata: ["journal.walk": "\(point.walk)", "error": "\(error)"])
        }
        // The queue: the point leaves it unless it is to be retried (and its walk is still on).
        if var points = queue[job.walk], let index = points.firstIndex(where: { $0.point.index == job.point.index }) {
            if point.status == .pending {
                points[index] = point
                points.sort { ($0.nextAttempt ?? 0, $0.point.index) < ($1.nextAttempt ?? 0, $1.point.index) }
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
        do {
            let payload = try JSONEncoder.journal.encode(PhotoPointPayload(point, urlPrefix: configuration.photoURLPrefix))
            try await context.bus.publish(BusMessage(topic: context.topics.device(device, .journalPhoto), payload: payload, qos: .atLeastOnce))
        } catch {
            context.logger.warning("could not publish a photo point", metadata: ["device": "\(device)", "error": "\(error)"])
        }
        wake.signal()
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
