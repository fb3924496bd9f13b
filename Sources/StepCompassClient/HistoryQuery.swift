public import Foundation
import ServiceRuntime

/// An `activity/history` request: a device's steps per minute, hour or day over a range, checked before it is sent.
public struct HistoryQuery: Sendable, Hashable {
    /// The size of the buckets.
    public enum Granularity: String, Sendable, Hashable, CaseIterable {
        case minute, hour, day

        var seconds: Double {
            switch self {
            case .minute: 60
            case .hour: 3_600
            case .day: 86_400
            }
        }

        /// The range a request covers when `--from` is not given: an hour of minutes, a day of hours, a week of days.
        public var defaultSpan: Double {
            switch self {
            case .minute: 3_600
            case .hour: 86_400
            case .day: 7 * 86_400
            }
        }
    }

    /// The most buckets one request may span (the activity service's limit).
    public static let maximumBuckets = 50_000.0

    public let device: String
    public let from: Date
    public let to: Date
    public let granularity: Granularity

    /// Creates a query.
    /// - Throws: ``StepCompassClientError/Code/invalidInput`` for an invalid device id, `from` not before `to`, or a
    ///   range of more than ``maximumBuckets`` buckets.
    public init(device: String, from: Date, to: Date, granularity: Granularity) throws(StepCompassClientError) {
        do { try DeviceID.validate(device) } catch {
            throw .invalidInput("--device: \(error.message)")
        }
        guard from < to else {
            throw .invalidInput("--from (\(Timestamp.format(from))) must be before --to (\(Timestamp.format(to)))")
        }
        guard (to.timeIntervalSince(from) / granularity.seconds).rounded(.down) <= Self.maximumBuckets else {
            throw .invalidInput("the range spans more than 50000 \(granularity.rawValue)s: shorten it or choose a coarser --granularity")
        }
        self.device = device
        self.from = from
        self.to = to
        self.granularity = granularity
    }

    /// Parses a `--from`/`--to` value: an ISO 8601 timestamp (`2026-11-23T08:00:00Z`).
    /// - Throws: ``StepCompassClientError/Code/invalidInput`` naming `option`.
    public static func date(_ text: String, option: String) throws(StepCompassClientError) -> Date {
        guard let date = Timestamp.parse(text) else {
            throw .invalidInput("\(option) '\(text.prefix(60))' is not an ISO 8601 timestamp such as 2026-11-23T08:00:00Z")
        }
        return date
    }

    /// The request payload, with the contract's MQTT 3.1.1 fallback fields `replyTo` and `correlationId`.
    public func payload(replyTo: String, correlationId: String) -> Data {
        ServiceRequest.encode(
            HistoryRequest(
                device: device, from: Timestamp.format(from), to: Timestamp.format(to),
                granularity: granularity.rawValue, replyTo: replyTo, correlationId: .string(correlationId)))
    }
}
