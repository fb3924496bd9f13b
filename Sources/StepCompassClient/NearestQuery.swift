public import Foundation
import ServiceRuntime

/// A nearest-markers request (`markers/nearest`): from a marker's id or from a coordinate, checked
/// before it is sent.
public struct NearestQuery: Sendable, Hashable {
    /// Where distances are measured from.
    public enum Origin: Sendable, Hashable {
        case marker(id: String)
        case coordinate(latitude: Double, longitude: Double)
    }

    /// The contract's range for `count`.
    public static let countRange = 1...50

    public let origin: Origin
    public let count: Int

    /// Creates a query.
    /// - Parameters:
    ///   - origin: A marker id (not empty) or a WGS84 coordinate.
    ///   - count: How many markers, 1...50.
    /// - Throws: ``StepCompassClientError/Code/invalidInput`` naming the argument.
    public init(origin: Origin, count: Int = 3) throws(StepCompassClientError) {
        guard Self.countRange.contains(count) else {
            throw .invalidInput("--count must be 1...50, not \(count)")
        }
        switch origin {
        case .marker(let id):
            guard !id.isEmpty else { throw .invalidInput("the marker id is empty") }
        case .coordinate(let latitude, let longitude):
            guard latitude.isFinite, (-90...90).contains(latitude) else {
                throw .invalidInput("--lat must be a latitude from -90 to 90 degrees, not \(latitude)")
            }
            guard longitude.isFinite, (-180...180).contains(longitude) else {
                throw .invalidInput("--lon must be a longitude from -180 to 180 degrees, not \(longitude)")
            }
        }
        self.origin = origin
        self.count = count
    }

    /// The request payload. `replyTo` and `correlationId` are the contract's MQTT 3.1.1 fallback; an
    /// MQTT 5 marker service answers to the response topic instead and echoes `correlationId` as well.
    public func payload(replyTo: String, correlationId: String) -> Data {
        let body: NearestRequest
        switch origin {
        case .marker(let id):
            body = NearestRequest(id: id, count: count, replyTo: replyTo, correlationId: .string(correlationId))
        case .coordinate(let latitude, let longitude):
            body = NearestRequest(
                latitude: latitude, longitude: longitude, count: count, replyTo: replyTo, correlationId: .string(correlationId))
        }
        return ServiceRequest.encode(body)
    }
}
