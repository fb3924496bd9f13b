import Bus
import Foundation
import Logging
import MarkerKit
import ServiceRuntime

extension MarkerService {
    /// Answers a `markers/nearest` request; every outcome is a reply, never a throw.
    func answerNearest(_ message: BusMessage) async {
        let started = ContinuousClock.now
        let request: NearestRequest?
        let payload: Data
        let outcome: String
        do {
            let decoded = try PayloadDecoder().decode(NearestRequest.self, from: message.payload)
            request = decoded
            (payload, outcome) = await reply(to: decoded, message: message)
        } catch {
            request = nil
            await context.errors.reject(message, reason: error.message)
            payload = Self.encodeError(.badRequest(error.message), correlationId: nil)
            outcome = "badRequest"
        }
        await context.reply(payload, to: message, replyTo: request?.replyTo, rejected: outcome == "badRequest")
        metrics.nearestAnswered(outcome: outcome, since: started)
    }

    /// The reply payload for a decoded request (an error reply included), and its outcome: `ok` or the error's code.
    private func reply(to request: NearestRequest, message: BusMessage) async -> (Data, outcome: String) {
        switch await answer(request) {
        case .success(let reply):
            return ((try? Self.encoder.encode(reply)) ?? Data(), "ok")
        case .failure(let failure):
            if failure.code == "badRequest" {
                await context.errors.reject(message, reason: failure.message)
            }
            return (Self.encodeError(failure, correlationId: request.correlationId), failure.code)
        }
    }

    /// Answers a request from the markers in service.
    func answer(_ request: NearestRequest) async -> Result<NearestReply, NearestFailure> {
        let query: NearestRequest.Query
        switch request.query(defaultCount: MarkerIndex.defaultCount) {
        case .success(let value): query = value
        case .failure(let failure): return .failure(failure)
        }
        switch query {
        case .marker(_, let count), .coordinate(_, _, let count):
            guard MarkerIndex.countRange.contains(count) else {
                return .failure(
                    .badRequest(
                        "'count' must be in \(MarkerIndex.countRange.lowerBound)...\(MarkerIndex.countRange.upperBound)"
                    ))
            }
        }
        if case .coordinate(let latitude, let longitude, _) = query {
            do {
                _ = try FieldCheck.finite(latitude, "latitude", in: -90...90)
                _ = try FieldCheck.finite(longitude, "longitude", in: -180...180)
            } catch {
                return .failure(.badRequest(error.message))
            }
        }
        guard let index = await store.index else {
            return .failure(.notReady("the markers are not loaded yet; try again shortly"))
        }
        do {
            switch query {
            case .marker(let id, let count):
                let results = try index.nearest(toID: id, count: count)
                guard let origin = index.marker(withID: id) else {
                    return .failure(NearestFailure(code: "notFound", message: "no marker with id \"\(id)\""))
                }
                return .success(
                    NearestReply(
                        origin: .init(
                            id: origin.id, name: origin.name, latitude: origin.latitude, longitude: origin.longitude),
                        nearest: results.map(NearestReply.Neighbour.init), correlationId: request.correlationId))
            case .coordinate(let latitude, let longitude, let count):
                let results = try index.nearest(latitude: latitude, longitude: longitude, count: count)
                return .success(
                    NearestReply(
                        origin: .init(id: nil, name: nil, latitude: latitude, longitude: longitude),
                        nearest: results.map(NearestReply.Neighbour.init), correlationId: request.correlationId))
            }
        } catch {
            return .failure(NearestFailure(code: error.codeName, message: error.message))
        }
    }

    static func encodeError(_ failure: NearestFailure, correlationId: CorrelationID?) -> Data {
        ErrorReply(code: failure.code, message: failure.message, correlationId: correlationId).data
    }
}
