import ActivityKit
import ActivityStore
import Bus
import Foundation
import Logging
import ServiceRuntime

extension ActivityService {
    /// The most buckets one history request may span.
    static let maximumBuckets: Int64 = 50_000

    /// Answers an `activity/history` request; every outcome is a reply, never a throw.
    func answerHistory(_ message: BusMessage) async {
        let request: HistoryRequest
        do {
            request = try decoder.decode(HistoryRequest.self, from: message.payload)
        } catch {
            await context.errors.reject(message, reason: error.message)
            await context.reply(Self.errorReply("badRequest", error.message, correlationId: nil), to: message, replyTo: nil, rejected: true)
            return
        }
        let payload: Data
        var rejected = false
        switch await history(request) {
        case .success(let reply):
            payload = (try? JSONEncoder.activity.encode(reply)) ?? Data()
        case .failure(let failure):
            rejected = failure.code == "badRequest"
            if rejected { await context.errors.reject(message, reason: failure.message) }
            payload = Self.errorReply(failure.code, failure.message, correlationId: request.correlationId)
        }
        await context.reply(payload, to: message, replyTo: request.replyTo, rejected: rejected)
    }

    struct HistoryFailure: Error {
        let code: String
        let message: String
    }

    private func history(_ request: HistoryRequest) async -> Result<HistoryReply, HistoryFailure> {
        func bad(_ message: String) -> Result<HistoryReply, HistoryFailure> {
            .failure(HistoryFailure(code: "badRequest", message: message))
        }
        do {
            try DeviceID.validate(request.device)
        } catch {
            return bad(error.message)
        }
        guard let granularity = Granularity(rawValue: request.granularity) else {
            return bad("'granularity' is '\(request.granularity.prefix(40))'; expected minute, hour or day")
        }
        guard let from = Timestamp.parse(request.from) else { return bad("'from' is '\(request.from.prefix(40))', not an ISO 8601 date") }
        guard let to = Timestamp.parse(request.to) else { return bad("'to' is '\(request.to.prefix(40))', not an ISO 8601 date") }
        let start = Int64(from.timeIntervalSince1970.rounded(.down))
        let end = Int64(to.timeIntervalSince1970.rounded(.up))
        guard start < end else { return bad("'from' must be before 'to'") }
        let width: Int64 = granularity == .minute ? 60 : granularity == .hour ? 3_600 : 86_400
        guard (end - start) / width <= Self.maximumBuckets else {
            return bad("the range spans more than \(Self.maximumBuckets) \(granularity.rawValue)s; ask for a shorter range or a coarser granularity")
        }
        // A device this run does not track gets the service's zone, and is not tracked for a question about it.
        let calendar = devices[request.device]?.calendar ?? configuration.calendar
        do {
            let buckets = try await store.history(device: request.device, from: start, to: end, granularity: granularity)
            return .success(
                HistoryReply(
                    device: request.device, granularity: granularity.rawValue, timeZone: calendar.identifier,
                    buckets: buckets.map { .init(start: Timestamp.format(Date(timeIntervalSince1970: Double($0.start))), steps: $0.steps) },
                    correlationId: request.correlationId))
        } catch {
            context.logger.warning("could not read a history", metadata: ["device": "\(request.device)", "error": "\(error)"])
            return .failure(HistoryFailure(code: "unavailable", message: "the step history cannot be read now; try again shortly"))
        }
    }

    static func errorReply(_ code: String, _ message: String, correlationId: CorrelationID?) -> Data {
        ErrorReply(code: code, message: message, correlationId: correlationId).data
    }
}
