import JournalKit
import ServiceRuntime

/// What the journal knows of one device.
struct DeviceJournal {
    /// The walk that is on.
    var walk: Walk?
    /// The route of that walk so far.
    var tracker: RouteTracker
    /// The device's `location` permission (`authorized`, `denied`, ...); nil until its permissions arrive.
    var location: SensorPermission?
    var auto: AutoWalkDetector
    /// The last step count seen (for `--auto`).
    var lastCount: Int64?
    /// The last fix good enough for the route, to start a walk from where the walker is.
    var lastFix: Fix?
    /// Route points and photo points not yet written.
    var pendingRoute: [RoutePoint] = []
    var pendingPoints: [PhotoPoint] = []
    /// The last `journal` payload published, and the distance it showed.
    var published: JournalMessage?

    struct Fix {
        var coordinate: GeoCoordinate
        var altitude: Double?
        var accuracy: Double?
        var time: Double
    }

    init(settings: RouteTracker.Settings, rest: Double) {
        tracker = RouteTracker(settings: settings)
        auto = AutoWalkDetector(rest: rest)
    }

    /// Whether the walk's route and photos are recorded now: a walk is on and the location permission is granted.
    var recording: Bool { walk != nil && location == .authorized }

    /// Why nothing is recorded, in words; nil while recording or with no walk on.
    var pausedReason: String? {
        guard walk != nil else { return nil }
        switch location {
        case .authorized?: return nil
        case nil: return "waiting for the device's location permission (stepcompass/{device}/permissions)"
        case let other?: return "the location permission is \(other.rawValue); nothing is recorded or sent to a photo service"
        }
    }
}
