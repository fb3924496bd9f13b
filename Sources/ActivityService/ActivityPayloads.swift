import ActivityKit
import Foundation
import ServiceRuntime

/// `stepcompass/{device}/steps`, reduced to what the activity service needs.
struct StepsInput: Decodable {
    let steps: Double
    let timestamp: String?

    /// The count as an integer.
    /// - Throws: `InputError` for a negative, fractional, non-finite or too large count.
    func count() throws(InputError) -> Int64 {
        try FieldCheck.stepCount(steps)
    }
}

/// `stepcompass/{device}/permissions`: `motion`, and the activity service's own optional field `timeZone`, the
/// device's IANA time zone (`"Europe/Berlin"`), in which its hours and days are counted.
struct PermissionsInput: Decodable {
    let motion: String?
    let timeZone: String?
}

/// A `stepcompass/activity/history` request.
struct HistoryRequest: Decodable {
    let device: String
    let from: String
    let to: String
    let granularity: String
    let replyTo: String?
    let correlationId: CorrelationID?
}

/// `stepcompass/{device}/activity` (QoS 1, retained).
struct ActivityPayload: Encodable, Equatable {
    struct PlaylistPayload: Encodable, Equatable {
        let id: String
        let name: String
        let description: String
        let tempo: [Double]
        let link: String
    }

    struct SuggestionPayload: Encodable, Equatable {
        let playlist: PlaylistPayload
        let reason: String
    }

    let timestamp: String
    let today: Int64
    let days: [Int64]
    let weekTotal: Int64
    let dailyMean: Double
    let band: String
    let cadence: Double
    let authorization: String
    let timeZone: String
    /// The suggestion, or null when the authorization withholds it.
    let suggestion: SuggestionPayload?
    /// Why there is no suggestion and what to do (the authorization's guidance); null when authorized.
    let guidance: String?

    enum CodingKeys: String, CodingKey {
        case timestamp, today, days, weekTotal, dailyMean, band, cadence, authorization, timeZone, suggestion, guidance
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(today, forKey: .today)
        try container.encode(days, forKey: .days)
        try container.encode(weekTotal, forKey: .weekTotal)
        try container.encode(dailyMean, forKey: .dailyMean)
        try container.encode(band, forKey: .band)
        try container.encode(cadence, forKey: .cadence)
        try container.encode(authorization, forKey: .authorization)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(suggestion, forKey: .suggestion)  // null, not absent, when withheld
        try container.encode(guidance, forKey: .guidance)
    }
}

/// A history reply.
struct HistoryReply: Encodable {
    struct Bucket: Encodable {
        let start: String
        let steps: Int64
    }

    let device: String
    let granularity: String
    let timeZone: String
    let buckets: [Bucket]
    let correlationId: CorrelationID?
}
