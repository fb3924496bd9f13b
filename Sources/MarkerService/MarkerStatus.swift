import Foundation
import ServiceRuntime

/// The retained `stepcompass/markers/status` payload.
///
/// Every field is always present (null when it does not apply) so a user reading it with
/// `mosquitto_sub` sees the whole shape.
struct MarkerStatus: Encodable, Sendable, Equatable {
    enum State: String, Encodable, Sendable {
        case loading, ready, failed
    }

    struct ErrorInfo: Encodable, Sendable, Equatable {
        var code: String
        var message: String
    }

    var state: State
    /// Markers in service.
    var count: Int
    /// Features of the document in service that were rejected.
    var rejected: Int
    /// The configured URL or path.
    var source: String
    /// True while the markers in service come from the disk cache, not from a fetch of this run.
    var fromCache: Bool
    /// When the markers in service were last fetched or confirmed (a 304); null before any.
    var updatedAt: Date?
    /// The last fetch's failure; null after a success.
    var error: ErrorInfo?
    /// When the next attempt is due after a failure; null otherwise.
    var retryAt: Date?

    enum CodingKeys: String, CodingKey {
        case state, count, rejected, source, fromCache, updatedAt, error, retryAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(count, forKey: .count)
        try container.encode(rejected, forKey: .rejected)
        try container.encode(source, forKey: .source)
        try container.encode(fromCache, forKey: .fromCache)
        try container.encode(updatedAt.map(Timestamp.format), forKey: .updatedAt)
        try container.encode(error, forKey: .error)
        try container.encode(retryAt.map(Timestamp.format), forKey: .retryAt)
    }
}
