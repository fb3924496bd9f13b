/// Turns a walk's GPS fixes and dead-reckoned positions into route points, the distance walked and the photo
/// points reached (one every ``Settings/photoEvery`` metres along the route).
///
/// GPS fixes are preferred. Dead-reckoned positions (from the position service's step counting, in metres from its
/// own origin) fill in only while the last good fix is older than ``Settings/fixTimeout``: they are placed on the map
/// relative to the last good fix (the "anchor"), so their origin never matters.
public struct RouteTracker: Sendable {
    /// The tracker's tuning.
    public struct Settings: Sendable, Equatable {
        /// Metres between photo points along the route; zero or less makes no photo points.
        public var photoEvery: Double = 100
        /// Metres: fixes whose horizontal accuracy is larger than this are ignored.
        public var maximumAccuracy: Double = 50
        /// Metres: a new route point is made only this far from the last one, so GPS jitter while standing still
        /// adds no distance.
        public var minimumSpacing: Double = 5
        /// Seconds: dead-reckoned positions are used only when the last good fix is older than this.
        public var fixTimeout: Double = 10
        /// Metres per second: a position implying more than this from the last route point is a jump and is ignored.
        public var maximumSpeed: Double = 15

        /// Settings with the given values (metres, seconds and metres per second as above).
        public init(
            photoEvery: Double = 100, maximumAccuracy: Double = 50, minimumSpacing: Double = 5, fixTimeout: Double = 10,
            maximumSpeed: Double = 15
        ) {
            self.photoEvery = photoEvery
            self.maximumAccuracy = maximumAccuracy
            self.minimumSpacing = minimumSpacing
            self.fixTimeout = fixTimeout
            self.maximumSpeed = maximumSpeed
        }
    }

    /// Why a position was not used.
    public enum Rejection: Sendable, Equatable {
        /// The coordinate is not finite or out of range (or a dead-reckoned reading is not finite).
        case invalidCoordinate
        /// The fix's horizontal accuracy, in metres, is negative, not finite or above ``Settings/maximumAccuracy``.
        case inaccurate(Double)
        /// The position is older than the last route point (or its time is not finite).
        case outOfOrder
        /// A dead-reckoned position arrived before any good fix, so it cannot be placed on the map.
        case noFixYet
        /// The fix implies this speed, in metres per second, from the last route point: more than
        /// ``Settings/maximumSpeed`` (infinity when no time passed).
        case tooFast(Double)
    }

    /// What one position did: the route points added (at most one), the photo points crossed, or why it was rejected.
    public struct Update: Sendable, Equatable {
        /// Route points added, in order (at most one).
        public var points: [RoutePoint]
        /// Photo points reached by the new route segment, in order (several when a long segment crosses several).
        public var photoPoints: [PhotoPoint]
        /// Why the position was not used; nil when it was (even when it added no point, being too close).
        public var rejection: Rejection?

        /// An update with the given points and rejection.
        public init(points: [RoutePoint] = [], photoPoints: [PhotoPoint] = [], rejection: Rejection? = nil) {
            self.points = points
            self.photoPoints = photoPoints
            self.rejection = rejection
        }
    }

    /// The last good fix, which places dead-reckoned positions on the map.
    private struct Anchor: Sendable {
        var coordinate: GeoCoordinate
        /// Metres; carried by dead-reckoned points.
        var altitude: Double?
        /// Seconds since 1970.
        var time: Double
        /// The dead-reckoned reading (metres north, east) that corresponds to ``coordinate``.
        var reference: Reading?
    }

    /// A dead-reckoned position in metres from the position service's origin.
    private struct Reading: Sendable {
        var north: Double
        var east: Double
    }

    /// The tuning this tracker was made with.
    public let settings: Settings
    /// Metres along the route so far.
    public private(set) var distance: Double
    /// The last route point, nil before the first.
    public private(set) var last: RoutePoint?
    /// Photo points reached so far (the index of the last one emitted).
    public private(set) var photoPointsReached: Int

    private var anchor: Anchor?
    private var latestReading: Reading?

    /// A tracker for a new walk: no route yet, distance 0.
    public init(settings: Settings = .init()) {
        self.init(settings: settings, resuming: nil, photoPointsReached: 0)
    }

    /// Resumes a walk after a restart from its last stored route point and the photo points it reached.
    ///
    /// The distance continues from `last.distance` (metres) and the next photo point has index
    /// `photoPointsReached + 1`. Dead-reckoned positions wait for a new good fix (there is no anchor yet).
    public init(settings: Settings = .init(), resuming last: RoutePoint?, photoPointsReached: Int) {
        self.settings = settings
        self.last = last
        self.distance = last?.distance ?? 0
        self.photoPointsReached = max(0, photoPointsReached)
    }

    /// Offers a GPS fix: `coordinate` in degrees, `altitude` in metres (nil when unknown), `horizontalAccuracy` in
    /// metres (nil when unknown, which is accepted), `time` in seconds since 1970.
    ///
    /// An accepted fix becomes the anchor for later dead-reckoned positions, and adds a route point when it is at
    /// least ``Settings/minimumSpacing`` metres from the last one.
    public mutating func fix(_ coordinate: GeoCoordinate, altitude: Double?, horizontalAccuracy: Double?, time: Double) -> Update {
        guard coordinate.isValid else { return Update(rejection: .invalidCoordinate) }
        if let accuracy = horizontalAccuracy, !(accuracy.isFinite && accuracy >= 0 && accuracy <= settings.maximumAccuracy) {
            return Update(rejection: .inaccurate(accuracy))
        }
        guard time.isFinite else { return Update(rejection: .outOfOrder) }
        if let last {
            if time < last.time { return Update(rejection: .outOfOrder) }
            if let speed = excessiveSpeed(from: last, to: coordinate, at: time) { return Update(rejection: .tooFast(speed)) }
        }
        let altitude = altitude.flatMap { $0.isFinite ? $0 : nil }
        anchor = Anchor(coordinate: coordinate, altitude: altitude ?? anchor?.altitude, time: time, reference: latestReading)
        return add(RoutePoint(time: time, coordinate: coordinate, elevation: altitude, source: .gps, distance: 0))
    }

    /// Offers a dead-reckoned position at `time` (seconds since 1970).
    ///
    /// `north`/`east`: the dead-reckoned position in metres from the position service's origin (x north, y east).
    ///
    /// It is used only when the last good fix is older than ``Settings/fixTimeout``; it is then placed at the
    /// anchor fix plus the movement since the reading that corresponds to the anchor. The first reading after a fix
    /// that had none becomes that reference. A reading that would imply more than ``Settings/maximumSpeed`` from the
    /// last route point (the position service was reset, say) re-anchors instead: it is taken to be at the last
    /// route point, and no point is added.
    public mutating func deadReckoned(north: Double, east: Double, time: Double) -> Update {
        guard north.isFinite, east.isFinite else { return Update(rejection: .invalidCoordinate) }
        let reading = Reading(north: north, east: east)
        latestReading = reading
        guard var anchor else { return Update(rejection: .noFixYet) }
        guard let reference = anchor.reference else {
            anchor.reference = reading
            self.anchor = anchor
            return Update()
        }
        guard time.isFinite else { return Update(rejection: .outOfOrder) }
        guard time - anchor.time > settings.fixTimeout else { return Update() }
        if let last, time < last.time { return Update(rejection: .outOfOrder) }
        let coordinate = Geodesy.offset(anchor.coordinate, north: north - reference.north, east: east - reference.east)
        guard coordinate.isValid else { return Update(rejection: .invalidCoordinate) }
        if let last, excessiveSpeed(from: last, to: coordinate, at: time) != nil {
            self.anchor = Anchor(coordinate: last.coordinate, altitude: anchor.altitude, time: anchor.time, reference: reading)
            return Update()
        }
        return add(RoutePoint(time: time, coordinate: coordinate, elevation: anchor.altitude, source: .deadReckoning, distance: 0))
    }

    /// The speed in metres per second from `last` to `coordinate` at `time` when it is above the maximum (infinity
    /// when no time passed yet the position moved more than the minimum spacing); nil when it is plausible.
    private func excessiveSpeed(from last: RoutePoint, to coordinate: GeoCoordinate, at time: Double) -> Double? {
        let metres = Geodesy.distance(last.coordinate, coordinate)
        let seconds = time - last.time
        if seconds > 0 {
            let speed = metres / seconds
            return speed > settings.maximumSpeed ? speed : nil
        }
        return metres > settings.minimumSpacing ? .infinity : nil
    }

    /// Appends `candidate` when it is far enough from the last point, with the photo points its segment crosses.
    private mutating func add(_ candidate: RoutePoint) -> Update {
        var point = candidate
        guard let last else {
            point.distance = distance
            self.last = point
            return Update(points: [point])
        }
        let metres = Geodesy.distance(last.coordinate, point.coordinate)
        guard metres >= settings.minimumSpacing else { return Update() }
        distance += metres
        point.distance = distance
        self.last = point

        var photoPoints: [PhotoPoint] = []
        let every = settings.photoEvery
        if every > 0, every.isFinite, metres > 0 {
            let epsilon = 1e-6
            while Double(photoPointsReached + 1) * every <= distance + epsilon {
                let target = Double(photoPointsReached + 1) * every
                let fraction = min(1, max(0, (target - last.distance) / metres))
                photoPointsReached += 1
                photoPoints.append(
                    PhotoPoint(
                        index: photoPointsReached,
                        distance: target,
                        coordinate: Geodesy.interpolate(last.coordinate, point.coordinate, fraction: fraction),
                        time: last.time + (point.time - last.time) * fraction
                    ))
            }
        }
        return Update(points: [point], photoPoints: photoPoints)
    }
}
