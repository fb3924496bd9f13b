public import JournalKit

/// Why the journal store refused a call.
public enum JournalStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device already has a walk on (at most one active walk per device); `walk` is that walk's id.
    case walkActive(device: String, walk: String)
    /// No walk has this id.
    case unknownWalk(String)

    public var description: String {
        switch self {
        case .walkActive(let device, let walk): "device \(device) already has a walk on (\(walk))"
        case .unknownWalk(let id): "no walk \(id)"
        }
    }
}

/// Where the journal keeps walks, routes and photo points. Two implementations, one conformance suite:
/// ``SQLiteJournalStore`` (embedded, the default) and ``PostgresJournalStore``.
///
/// The journal may share its database with the activity history (the same PostgreSQL database, or the same SQLite
/// file): its tables are prefixed `journal_` and its schema version is kept in `journal_schema_version`, so neither
/// store touches the other's tables.
public protocol JournalStore: Sendable {
    /// Creates or upgrades the journal's schema to the current version (idempotent; run at start).
    func migrate() async throws
    /// Stores a new walk (walk.stopped must be nil). Throws ``JournalStoreError/walkActive(device:walk:)`` when the
    /// device has a walk on (atomic check: at most one active walk per device, enforced by the database with a
    /// partial unique index on `device WHERE stopped IS NULL`).
    func startWalk(_ walk: Walk) async throws
    /// Sets `stopped` of an active walk; returns the stored walk (unchanged if it was already stopped), nil for an
    /// unknown id.
    func stopWalk(id: String, at time: Double) async throws -> Walk?
    /// The walk a device has on, nil when none.
    func activeWalk(device: String) async throws -> Walk?
    /// Every active walk of every device (the service resumes them at start), by device.
    func activeWalks() async throws -> [Walk]
    /// The walk with this id, nil when none.
    func walk(id: String) async throws -> Walk?
    /// A device's walks, newest start first, at most `limit`.
    func walks(device: String, limit: Int) async throws -> [Walk]
    /// In one transaction: appends route points and inserts new photo points (status pending, attempts 0) of a
    /// walk, and sets the walk's distance to the last route point's distance (if any), routePoints += route.count,
    /// points = number of photo points. A photo point whose index is already stored is ignored (idempotent).
    /// Throws ``JournalStoreError/unknownWalk(_:)``.
    func record(walk: String, route: [RoutePoint], photoPoints: [PhotoPoint]) async throws
    /// A walk's route in order (empty for an unknown walk).
    func route(walk: String) async throws -> [RoutePoint]
    /// The last route point of a walk (to resume it), nil when none.
    func lastRoutePoint(walk: String) async throws -> RoutePoint?
    /// A walk's photo points, ascending index.
    func photoPoints(walk: String) async throws -> [WalkPhotoPoint]
    /// Pending photo points of any walk (active or stopped) whose nextAttempt is nil or <= now, ordered by
    /// nextAttempt (nil first) then walk then index, at most `limit`.
    func duePhotoPoints(now: Double, limit: Int) async throws -> [WalkPhotoPoint]
    /// Stores a lookup's outcome for (point.walk, point.point.index): status, photo, cachedFile, attempts,
    /// nextAttempt, lastError; and sets the walk's `photos` to the number of its points with status found.
    /// A point not recorded yet is inserted (and counted in the walk's `points`).
    /// Throws ``JournalStoreError/unknownWalk(_:)`` for an unknown walk.
    func update(_ point: WalkPhotoPoint) async throws
    /// The ids of the photos found in a walk.
    func usedPhotoIDs(walk: String) async throws -> Set<String>
    /// Closes the store; nothing may be called after.
    func close() async throws
}
