public import ActivityKit
import Foundation

/// One step message, ready to store: the device, its cumulative count and the buckets of its timestamp (in the
/// device's time zone, worked out by the service, so that the stores do no calendar arithmetic).
public struct StepRecord: Sendable, Hashable {
    public var device: String
    /// The cumulative count the device reported.
    public var count: Int64
    /// The message's timestamp (or its receive time), in seconds since 1970.
    public var time: Double
    /// The minute, hour and day the steps belong to.
    public var buckets: BucketStarts

    public init(device: String, count: Int64, time: Double, buckets: BucketStarts) {
        self.device = device
        self.count = count
        self.time = time
        self.buckets = buckets
    }
}

/// What storing one record did, in the order of the batch.
public struct AppliedStep: Sendable, Hashable {
    public var record: StepRecord
    /// What the count did to the device's tally (its delta is the new steps, stored in its buckets).
    public var change: StepTally.Change
    /// The device's tally after it.
    public var tally: StepTally

    public init(record: StepRecord, change: StepTally.Change, tally: StepTally) {
        self.record = record
        self.change = change
        self.tally = tally
    }
}

/// A bucket of a step history.
public struct StepBucket: Sendable, Hashable {
    /// Its start, in seconds since 1970.
    public var start: Int64
    public var steps: Int64

    public init(start: Int64, steps: Int64) {
        self.start = start
        self.steps = steps
    }
}

/// Where the activity service keeps step history: per device the tally of cumulative counts (``StepTally``) and
/// steps per minute, hour and day.
///
/// Two implementations, one contract (the shared conformance suite runs against both): ``SQLiteActivityStore``
/// (embedded, the default) and ``PostgresActivityStore``.
///
/// ``apply(_:)`` is the only write of step data and is atomic: the tallies and every bucket of a batch are committed
/// together or not at all, so a crash leaves the database as it was before or after the batch, and the next
/// cumulative count of a device restores any steps of a batch that was lost.
public protocol ActivityStore: Sendable {
    /// Creates or upgrades the schema to the current version (idempotent; run at start).
    func migrate() async throws
    /// Applies a batch of step messages, in order, in one transaction: each record's count goes through its
    /// device's ``StepTally``; its delta is added to its minute, hour and day.
    /// - Returns: One ``AppliedStep`` per record, in order.
    func apply(_ batch: [StepRecord]) async throws -> [AppliedStep]
    /// The tally of a device; nil for a device never seen.
    func tally(of device: String) async throws -> StepTally?
    /// The non-empty buckets of a device whose start lies in `from..<to` (seconds since 1970), ascending.
    func history(device: String, from: Int64, to: Int64, granularity: Granularity) async throws -> [StepBucket]
    /// Deletes the minute buckets that start before `before` (seconds since 1970); hours and days are kept.
    /// - Returns: The number of minute buckets deleted.
    @discardableResult
    func deleteMinutes(before: Int64) async throws -> Int
    /// Closes the store; nothing may be called after.
    func close() async throws
}

/// The schema's version history, shared by both stores: each version's statements, applied in order, each version
/// in its own transaction with its number recorded in `schema_version`.
enum ActivitySchema {
    /// The statements of each version (index 0 is version 1). Plain SQL both SQLite and PostgreSQL accept.
    static let versions: [[String]] = [
        [
            """
            CREATE TABLE device_tally (
                device TEXT PRIMARY KEY,
                last_count BIGINT NOT NULL,
                total BIGINT NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE TABLE step_minutes (device TEXT NOT NULL, start BIGINT NOT NULL, steps BIGINT NOT NULL, PRIMARY KEY (device, start))",
            "CREATE TABLE step_hours (device TEXT NOT NULL, start BIGINT NOT NULL, steps BIGINT NOT NULL, PRIMARY KEY (device, start))",
            "CREATE TABLE step_days (device TEXT NOT NULL, start BIGINT NOT NULL, steps BIGINT NOT NULL, PRIMARY KEY (device, start))",
            "CREATE INDEX step_minutes_start ON step_minutes (start)",
        ],
        // 2: the session's recent counts, which tell a redelivered count from a new session (see `StepTally`).
        ["ALTER TABLE device_tally ADD COLUMN recent_counts TEXT NOT NULL DEFAULT ''"],
    ]

    /// The schema, its version table and its migration lock ("SCAC" in ASCII).
    static let schema = VersionedSchema(versionTable: "schema_version", versions: versions, lockKey: 0x5343_4143)

    static func table(_ granularity: Granularity) -> String {
        switch granularity {
        case .minute: "step_minutes"
        case .hour: "step_hours"
        case .day: "step_days"
        }
    }
}

/// A batch worked out in memory before it is written: the tallies after it, and the sums per bucket.
struct PreparedBatch {
    var applied: [AppliedStep] = []
    /// The tallies of the devices the batch touched, after it.
    var tallies: [String: StepTally] = [:]
    /// Sums to add, per granularity, per (device, start).
    var increments: [Granularity: [BucketKey: Int64]] = [:]

    struct BucketKey: Hashable {
        var device: String
        var start: Int64
    }

    /// Runs the records through the tallies, which `known` gives for devices already stored.
    init(_ batch: [StepRecord], known: [String: StepTally]) {
        var tallies = known
        var touched = Set<String>()
        for record in batch {
            var tally = tallies[record.device] ?? StepTally()
            let change = tally.apply(record.count, at: record.time)
            tallies[record.device] = tally
            touched.insert(record.device)
            applied.append(AppliedStep(record: record, change: change, tally: tally))
            let delta = change.delta
            guard delta > 0 else { continue }
            for granularity in Granularity.allCases {
                increments[granularity, default: [:]][BucketKey(device: record.device, start: record.buckets.start(granularity)), default: 0] += delta
            }
        }
        self.tallies = tallies.filter { touched.contains($0.key) }
    }
}
