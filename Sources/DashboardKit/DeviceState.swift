public import StepCompassContract

/// What the dashboard knows about one device: the last report of each kind, the walked path and the
/// rose's angle. ``view`` turns it into a ``DeviceView``.
public struct DeviceState: Sendable, Hashable {
    public let id: String
    public internal(set) var steps: StepsMessage?
    public internal(set) var heading: HeadingMessage?
    public internal(set) var position: PositionMessage?
    public internal(set) var calibration: CalibrationMessage?
    public internal(set) var bearingLock: BearingLockMessage?
    public internal(set) var location: LocationMessage?
    public internal(set) var permissions: PermissionsMessage?
    public internal(set) var activity: ActivityMessage? {
        didSet { activityView = ActivityView(report: activity) }
    }
    /// The Activity panel of ``activity``, built when that changes rather than in ``view``, which runs on every
    /// heading and position.
    private(set) var activityView = ActivityView.notReported
    /// The journal's last `journal` message, and the `journal/photo` points of its walk in point order (at most
    /// ``journalPointLimit``, the furthest along).
    public internal(set) var journal: JournalMessage?
    public internal(set) var journalPoints: [JournalPhotoPoint] = []
    /// The positions walked, oldest first, at most the model's path limit.
    public internal(set) var path: [PathPoint] = []
    public internal(set) var rose = RoseAngle()

    public init(id: String) {
        self.id = id
    }

    /// Records a position: appends it to the path unless it did not move, and starts a new path when
    /// the position was reset (fewer batches than before).
    mutating func record(_ report: PositionMessage, pathLimit: Int) {
        if let previous = position, let before = previous.updates, let now = report.updates, now < before {
            path.removeAll(keepingCapacity: true)
        }
        position = report
        let point = PathPoint(x: report.x, y: report.y)
        guard point.x.isFinite, point.y.isFinite, path.last != point else { return }
        path.append(point)
        if path.count > pathLimit { path.removeFirst(path.count - pathLimit) }
    }
}

/// One point of the walked path, in the position frame (x north, y east, metres).
public struct PathPoint: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
