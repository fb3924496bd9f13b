/// Everything the page shows about one device, as text ready to display and numbers to draw with.
///
/// This is the view model of the dashboard (MVVM): the page only copies these fields into the DOM, so
/// what a person reads ("Heading: 270° W", "Position: (12.3 m, –4.5 m)") is decided and tested here.
public struct DeviceView: Sendable, Hashable, Codable {
    public var id: String

    public var steps: Int?
    /// `Steps: 123`.
    public var stepsText: String

    /// The published heading (the device's north reference), nil when unknown or stale.
    public var heading: Double?
    /// `Heading: 270° W`.
    public var headingText: String
    /// `ok`, `stale`, `noPermission`, `noSensor`, or `waiting` before the first heading.
    public var headingStatus: String
    /// Why there is no fresh heading, nil when it is fresh.
    public var headingStatusText: String?
    /// The rose's unwrapped rotation in degrees (see ``RoseAngle``); the dial turns by its negative.
    public var roseRotation: Double
    /// `true` or `magnetic`: the reference of `heading`.
    public var north: String
    /// `True north` or `Magnetic north`, with why when true north is asked for but not possible yet.
    public var northText: String
    public var declinationText: String?
    public var accuracy: Double?
    /// `Accuracy: ±3°`.
    public var accuracyText: String?
    /// `Pitch 12°, roll –3°`.
    public var tiltText: String?
    public var interference: Bool
    public var interferenceText: String?
    public var calibration: CalibrationView

    public var x: Double?
    public var y: Double?
    /// `Position: (12.3 m, –4.5 m)`.
    public var positionText: String
    /// `Distance walked: 120.0 m`.
    public var distanceText: String?

    public var location: LocationView?
    public var permissions: PermissionsView
    public var bearingLock: BearingLockView
    /// The week's steps and the music that fits them (the Activity panel).
    public var activity: ActivityView

    /// The calibration state and, when the user has something to do, the prompt.
    public struct CalibrationView: Sendable, Hashable, Codable {
        public var state: String
        /// `Compass calibrated`, `Calibrating… 40% covered`.
        public var text: String
        /// The figure-8 prompt, present when the user should move the device.
        public var prompt: String?
        public var quality: Double?
        public var coverage: Double?
    }

    /// Where the device is.
    public struct LocationView: Sendable, Hashable, Codable {
        public var latitude: Double
        public var longitude: Double
        /// `48.13743° N, 11.57549° E`.
        public var text: String
        /// The place on OpenStreetMap.
        public var mapURL: String
        public var altitude: Double?
        /// `Elevation: 519 m`, nil without an altitude.
        public var elevationMetresText: String?
        /// `Elevation: 1,703 ft`.
        public var elevationFeetText: String?
        /// The fix's horizontal accuracy in metres (the radius of the map's accuracy circle), nil when not reported.
        public var horizontalAccuracy: Double?
        /// `GPS position, ±12 m` (`GPS position` without an accuracy): the map's label of the position.
        public var accuracyText: String
    }

    /// The device's sensor permissions, with guidance when one is refused.
    public struct PermissionsView: Sendable, Hashable, Codable {
        public var motion: String?
        public var location: String?
        /// `Motion: authorized · Location: denied`.
        public var text: String
        /// What to do about a refused or missing permission; nil when all is well.
        public var guidance: String?
    }

    /// The bearing lock: the locked bearing drawn on the rose and the red band when exceeded.
    public struct BearingLockView: Sendable, Hashable, Codable {
        public var locked: Bool
        public var bearing: Double?
        public var deviation: Double?
        public var threshold: Double?
        public var exceeded: Bool
        /// `Locked on 45° NE: +12° off (limit 10°)` or `Not locked`.
        public var text: String
    }
}
