import MarkerKit
import ServiceRuntime

/// The marker service's checks of the contract's ``NearestRequest`` (the decoder checks its shape).
extension NearestRequest {
    /// What the request asks for, once its shape is checked.
    enum Query: Sendable, Equatable {
        case marker(id: String, count: Int)
        case coordinate(latitude: Double, longitude: Double, count: Int)
    }

    /// The query, or a reason for a `badRequest` reply.
    func query(defaultCount: Int) -> Result<Query, NearestFailure> {
        let count = self.count ?? defaultCount
        switch (id, latitude, longitude) {
        case (let id?, nil, nil):
            return .success(.marker(id: id, count: count))
        case (nil, let latitude?, let longitude?):
            return .success(.coordinate(latitude: latitude, longitude: longitude, count: count))
        case (_?, _, _):
            return .failure(.badRequest("give either 'id' or 'latitude' and 'longitude', not both"))
        case (nil, _?, nil), (nil, nil, _?):
            return .failure(.badRequest("'latitude' and 'longitude' must be given together"))
        case (nil, nil, nil):
            return .failure(.badRequest("the request needs 'id' or 'latitude' and 'longitude'"))
        }
    }
}

extension NearestReply.Neighbour {
    /// A neighbour as replies and `nearby` messages list it, the distance rounded to two decimals.
    init(_ result: NearestResult) {
        self.init(
            id: result.marker.id, name: result.marker.name, latitude: result.marker.latitude,
            longitude: result.marker.longitude, distanceMiles: result.roundedMiles)
    }
}

/// A request that got an error reply: the contract's `notFound`, `badRequest` or `notReady`.
struct NearestFailure: Error, Sendable, Equatable {
    var code: String
    var message: String

    static func badRequest(_ message: String) -> NearestFailure { NearestFailure(code: "badRequest", message: message) }
    static func notReady(_ message: String) -> NearestFailure { NearestFailure(code: "notReady", message: message) }
}
