/// How the simulated walker carries the phone. Each carry fixes the device's orientation relative to the walker over
/// the gait cycle and the accelerations it feels on top of gravity and the trunk's bounce; the gyroscope and the
/// magnetometer always follow that orientation (the gyroscope is the rate that takes one sample's attitude to the
/// next, the magnetometer the field rotated into the device frame). The walking direction is the route's whatever
/// the carry: only the phone's own heading differs (see ``WalkerSimulator/deviceHeading``).
///
/// The gait phase: the walker's continuous step count `gait = steps + stepPhase` (one cycle per step, the step
/// frequency being the cadence); the stride (a right step and a left step) is half of it. Frames of the models:
/// the walker's body frame is forward, right, down (NED turned by the walking heading).
public enum PhoneCarry: String, Sendable, Hashable, CaseIterable {
    /// Held in front to read, top edge raised by ``WalkerConfiguration/pitch``, with the hand's sway and the optional
    /// figure-8: the simulator's original (and default) behaviour, unchanged bit for bit.
    case hand
    /// Held in front while typing: pitch 40°, roll ``WalkerConfiguration/roll``, twice the hand sway, and a stronger,
    /// slightly lagging vertical bob (1.2 × the step impacts). The figure-8 applies as for ``hand``.
    case texting
    /// At the right ear, screen facing the head, top up and tilted 20° backwards, nodding ±2° at the step
    /// frequency; the head's bounce is 0.8 × the trunk's.
    case ear
    /// In the right front trouser pocket, the device's y axis along the thigh (top down by default, see
    /// ``WalkerConfiguration/pocketTopDown``), the back of the phone facing forward-outward 30°; the thigh swings
    /// 5° ± 35° about the hip axis at the stride frequency, the phone 0.25 m below the hip (tangential and centripetal
    /// accelerations), with the trunk's bounce plus a sharper heel-strike impact (a second harmonic, 0.5 × impacts).
    case pocket
    /// Swinging in the right hand like a pendulum: the arm, 0.6 m from shoulder to phone, swings ±50° at the stride
    /// frequency (opposite to the right leg); the phone lies along the fingers, top down, screen facing the thigh.
    /// The arm's tangential and centripetal accelerations add to the trunk's.
    case swing
    /// In a shoulder bag: a fixed orientation drawn from the seed (uniform over all rotations), the bag hanging
    /// 0.35 m below the shoulder and swaying ±5° sideways at the stride frequency (±3° fore-aft at the step
    /// frequency); the step impacts reach it damped (0.6 ×) and delayed (0.8 rad).
    case bag
    /// In an armband on the right upper arm: vertical, top up, screen facing outwards, 0.15 m below the shoulder;
    /// the arm swings ±15° at the stride frequency (opposite to the right leg).
    case armband
}

/// What the simulated person does. ``walking`` (the default) follows the route; the others are scripts with the
/// walker standing still, for negative tests of step detection: they produce no step at all (and location fixes
/// with zero true speed). Scripts ignore ``WalkerConfiguration/carry`` and the figure-8.
public enum WalkerActivity: Sendable, Hashable {
    /// Walking the route, the phone carried per ``WalkerConfiguration/carry``.
    case walking
    /// The phone lies still on a table, flat and face up, its top towards the route's initial heading.
    case onTable
    /// An 8 s cycle, repeated: 2 s on the table; picked up over 1 s (lifted 0.3 m and tilted to 35°, a
    /// minimum-jerk motion); 3 s in the hand with a little tremor; put down over 1 s; 1 s on the table.
    case pickUpAndPutDown
    /// Held in the hand at rest (pitch 35°), then from `t = 1 s` shaken for `duration` seconds at `frequency` Hz
    /// (3–8 Hz is the interesting range: a step counter must not count it) — a sideways and up-down oscillation
    /// peaking at about 15 m/s² plus a ±20° twist, faded in and out over 0.3 s — then held still again.
    case shaken(frequency: Double = 5, duration: Double = 4)
}

/// Dropouts of the IMU stream, as a busy phone's sensor queue has: at each sample, outside a dropout, one starts
/// with probability `rate × interval`, lasting a length uniform in `minimumLength…maximumLength` seconds; the samples
/// inside it are not emitted (the walk, the steps, the fixes and the truth go on).
public struct IMUGaps: Sendable, Hashable {
    /// Expected dropouts per second (e.g. 0.05: one every 20 s).
    public var rate: Double
    /// Shortest dropout, seconds.
    public var minimumLength: Double
    /// Longest dropout, seconds.
    public var maximumLength: Double

    public init(rate: Double, minimumLength: Double = 0.2, maximumLength: Double = 1.5) {
        self.rate = rate
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
    }
}
