public import Foundation

/// Everything that shapes a simulated walk. The defaults are a realistic pedestrian with a realistic phone;
/// every noise and distortion can be turned off (``ideal(seed:)``) for tests that need exact values.
///
/// Two simulators with equal configurations (and equal field sources) produce identical events.
public struct WalkerConfiguration: Sendable, Hashable {
    /// Seeds every random choice: the route of a random walk, the gait, the hard and soft iron, the noise.
    public var seed: UInt64 = 1

    // MARK: Where and when

    /// Start latitude, WGS84 degrees. Default: a footpath near the Chinesischer Turm in Munich's Englischer Garten
    /// (48.1527° N, 11.5918° E), a public park with wide paths and a field of about (21, 1.6, 44) µT north/east/down.
    public var startLatitude = 48.1527
    /// Start longitude, WGS84 degrees.
    public var startLongitude = 11.5918
    /// Altitude above the WGS84 ellipsoid in metres; the walk is on flat ground.
    public var startAltitude = 515.0
    /// The wall-clock time of `t = 0`; it only matters for the date of the geomagnetic field and for timestamps the
    /// caller derives with ``WalkerSimulator/date(at:)``. Default 2026-11-22T10:00:00Z, inside WMM2025's validity.
    public var startDate = Date(timeIntervalSince1970: 1_795_341_600)
    /// Where the walker goes. Default ``Route/parkLoop``.
    public var route: Route = .parkLoop

    // MARK: Gait

    /// Mean step length in metres (0.75, the position calculator's default).
    public var stepLength = 0.75
    /// Relative standard deviation of each step's length (0.03: a few percent, clipped at ±3σ).
    public var stepLengthVariation = 0.03
    /// Mean steps per second (1.8, a brisk walk of about 1.35 m/s).
    public var cadence = 1.8
    /// Relative standard deviation of each step's cadence (clipped at ±3σ).
    public var cadenceVariation = 0.04
    /// Fastest turn of the walking direction, degrees per second. Turns are smooth, not instant.
    public var maximumTurnRate = 45.0
    /// How the pedometer reports. Default: an event per step.
    public var stepReporting: StepReporting = .everyStep

    // MARK: How the phone is held

    /// Degrees the top edge is raised: a phone held in front to read (35°).
    public var pitch = 35.0
    /// Degrees the right edge is lowered (a small 3°).
    public var roll = 3.0
    /// Amplitude in degrees of the hand's pitch bob at the step rhythm and roll sway at half of it (2°).
    public var handSway = 2.0
    /// Whether the user waves the phone in a figure-8 (to calibrate the compass) at the start, while walking.
    public var figureEight = true
    /// How long the figure-8 lasts, seconds (at most 5 by default); it fades in and out smoothly.
    public var figureEightDuration = 5.0
    /// How the phone is carried (``PhoneCarry/hand``, the original behaviour, by default). ``pitch``, ``roll`` and
    /// ``handSway`` shape the ``PhoneCarry/hand`` carry (``PhoneCarry/texting`` uses ``roll`` and ``handSway``); the
    /// figure-8 happens only in the hand and texting carries.
    public var carry: PhoneCarry = .hand
    /// In the ``PhoneCarry/pocket`` carry, whether the phone's top points down the thigh (true, the default) or up.
    public var pocketTopDown = true
    /// What the person does: ``WalkerActivity/walking`` (the default) or a still-phone script with no steps.
    public var activity: WalkerActivity = .walking

    // MARK: Sensors

    /// IMU samples per second (50).
    public var imuRate = 50.0
    /// Relative jitter of the IMU sampling interval: each interval is `(1 + imuJitter · u) / imuRate` with `u`
    /// uniform in −1…1 (0.1 = ±10 %), so timestamps wander off the regular grid as a real sensor queue's do.
    /// 0 (the default): samples exactly at multiples of `1 / imuRate`. At most 0.5.
    public var imuJitter = 0.0
    /// Dropouts of the IMU stream (none by default); see ``IMUGaps``.
    public var imuGaps: IMUGaps? = nil
    /// Peak vertical acceleration of the step impacts, m/s² (1.5), with smaller forward and sideways components.
    public var stepImpactAmplitude = 1.5
    /// Standard deviation of the accelerometer's white noise (sensor plus hand tremor), m/s².
    public var accelerometerNoise = 0.05
    /// Standard deviation of the constant accelerometer bias per axis, m/s² (0 by default): each axis gets its own
    /// offset, drawn once from the seed, like an uncalibrated MEMS accelerometer's (typically 0.02–0.1).
    public var accelerometerBias = 0.0
    /// The accelerometer's resolution, m/s² (0, the default: none): readings are rounded to multiples of it
    /// (e.g. 0.0024 for a 16-bit ±8 g sensor, 0.0383 for a 10-bit ±2 g one).
    public var accelerometerQuantization = 0.0
    /// Standard deviation of the gyroscope's white noise, rad/s.
    public var gyroscopeNoise = 0.003
    /// Standard deviation of the constant gyroscope bias per axis, rad/s (0 by default), drawn once from the seed.
    public var gyroscopeBias = 0.0
    /// Standard deviation of the magnetometer's white noise, µT.
    public var magnetometerNoise = 0.4
    /// Magnitude of the hard-iron offset in µT (10); its direction comes from the seed.
    public var hardIronMagnitude = 10.0
    /// An exact hard-iron offset in the device frame, µT, overriding ``hardIronMagnitude``.
    public var hardIron: [Double]? = nil
    /// Size of the soft-iron distortion: the standard deviation of the diagonal of `W − I` (0.03 = 3 %); the
    /// off-diagonal terms get half of it. The raw reading is `W⁻¹ · field + hardIron`.
    public var softIronDistortion = 0.03
    /// Places where a disturbance field is added to the Earth's.
    public var interferenceZones: [InterferenceZone] = []
    /// How often (simulated seconds) the geomagnetic field is evaluated again along the walk; it changes by
    /// well under 1 nT over a few hundred metres.
    public var fieldRefreshInterval = 10.0

    // MARK: Location

    /// Location fixes per second (1).
    public var locationRate = 1.0
    /// Standard deviation of the horizontal GPS error per axis, metres (3), a Gauss–Markov process.
    public var gpsHorizontalError = 3.0
    /// Standard deviation of the vertical GPS error, metres (5).
    public var gpsVerticalError = 5.0
    /// Correlation time of the GPS error, seconds (30): the error wanders, it does not jump.
    public var gpsCorrelationTime = 30.0

    // MARK: Truth

    /// `.truth` events per second (1). Raise it when a consumer needs the heading at each step.
    public var truthRate = 1.0

    /// The defaults described on each property.
    public init() {}

    /// A walker with no sensor noise, no hard or soft iron, no step impacts, no hand sway, no figure-8 and exact GPS:
    /// sensor readings are then exact functions of the attitude, which tests can check to a fraction of a degree.
    public static func ideal(seed: UInt64 = 1) -> WalkerConfiguration {
        var configuration = WalkerConfiguration()
        configuration.seed = seed
        configuration.makeExact()
        return configuration
    }

    /// Turns off what ``ideal(seed:)`` turns off, keeping everything else (the walk, the gait, the rates).
    public mutating func makeExact() {
        handSway = 0
        figureEight = false
        stepImpactAmplitude = 0
        accelerometerNoise = 0
        gyroscopeNoise = 0
        magnetometerNoise = 0
        hardIronMagnitude = 0
        softIronDistortion = 0
        gpsHorizontalError = 0
        gpsVerticalError = 0
    }

    func validate() throws {
        func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw WalkerSimulationError.invalidConfiguration(message()) }
        }
        func finite(_ values: Double...) -> Bool { values.allSatisfy(\.isFinite) }
        try require(finite(startLatitude) && abs(startLatitude) <= 89, "start latitude must be within ±89°")
        try require(finite(startLongitude) && abs(startLongitude) <= 180, "start longitude must be within ±180°")
        try require(
            finite(startAltitude) && startAltitude >= -1_000 && startAltitude <= 850_000,
            "start altitude must be -1,000…850,000 m")
        try require(startDate.timeIntervalSince1970.isFinite, "start date must be finite")
        try route.validate()
        try require(finite(stepLength) && stepLength > 0.1 && stepLength < 3, "step length must be 0.1…3 m")
        try require(finite(cadence) && cadence > 0.1 && cadence < 5, "cadence must be 0.1…5 steps/s")
        try require(
            finite(stepLengthVariation, cadenceVariation) && (0...0.3).contains(stepLengthVariation)
                && (0...0.3).contains(cadenceVariation), "step length and cadence variations must be 0…0.3")
        try require(finite(maximumTurnRate) && maximumTurnRate > 0, "maximum turn rate must be positive")
        if case .interval(let seconds) = stepReporting {
            try require(finite(seconds) && seconds > 0, "the step reporting interval must be positive")
        }
        try require(finite(pitch, roll) && abs(pitch) <= 60 && abs(roll) <= 60, "pitch and roll must be within ±60°")
        try require(finite(handSway) && handSway >= 0 && handSway <= 10, "hand sway must be 0…10°")
        try require(finite(figureEightDuration) && figureEightDuration >= 0, "figure-8 duration must not be negative")
        try require(finite(imuRate) && imuRate >= 1 && imuRate <= 1_000, "IMU rate must be 1…1,000 Hz")
        try require(finite(imuJitter) && imuJitter >= 0 && imuJitter <= 0.5, "IMU jitter must be 0…0.5")
        if let imuGaps {
            try require(
                finite(imuGaps.rate, imuGaps.minimumLength, imuGaps.maximumLength) && imuGaps.rate >= 0
                    && imuGaps.rate <= 10 && imuGaps.minimumLength > 0 && imuGaps.minimumLength <= imuGaps.maximumLength
                    && imuGaps.maximumLength <= 60, "IMU gaps: rate 0…10 /s, 0 < minimum ≤ maximum ≤ 60 s")
        }
        try require(
            finite(accelerometerBias, accelerometerQuantization, gyroscopeBias) && accelerometerBias >= 0
                && accelerometerQuantization >= 0 && gyroscopeBias >= 0,
            "accelerometer and gyroscope bias and quantisation must not be negative")
        if case .shaken(let frequency, let duration) = activity {
            try require(
                finite(frequency, duration) && frequency >= 0.5 && frequency <= 20 && duration > 0,
                "shaking frequency must be 0.5…20 Hz and its duration positive")
        }
        try require(finite(locationRate) && locationRate > 0 && locationRate <= 100, "location rate must be 0…100 Hz")
        try require(finite(truthRate) && truthRate > 0 && truthRate <= 1_000, "truth rate must be 0…1,000 Hz")
        try require(
            finite(stepImpactAmplitude, accelerometerNoise, gyroscopeNoise, magnetometerNoise, hardIronMagnitude)
                && stepImpactAmplitude >= 0 && accelerometerNoise >= 0 && gyroscopeNoise >= 0
                && magnetometerNoise >= 0 && hardIronMagnitude >= 0, "sensor amplitudes and noises must not be negative")
        try require(
            finite(softIronDistortion) && softIronDistortion >= 0 && softIronDistortion <= 0.2,
            "soft-iron distortion must be 0…0.2")
        if let hardIron {
            try require(hardIron.count == 3 && hardIron.allSatisfy(\.isFinite), "hard iron must be 3 finite numbers (µT)")
        }
        for zone in interferenceZones { try zone.validate() }
        try require(finite(fieldRefreshInterval) && fieldRefreshInterval > 0, "field refresh interval must be positive")
        try require(
            finite(gpsHorizontalError, gpsVerticalError, gpsCorrelationTime) && gpsHorizontalError >= 0
                && gpsVerticalError >= 0 && gpsCorrelationTime > 0, "GPS errors must not be negative, correlation time positive")
    }
}
