public import Configuration
import ServiceRuntime
import WalkerSimulation

extension SensorsConfiguration {
    /// The defaults: one walker, `walker-1`, at real time, running for ever.
    public static let defaults = SensorsConfiguration()

    /// Reads the simulated walk from configuration.
    ///
    /// Keys (each optional): `device` (string, default `walker-1`), `devices` (int: a fleet `walker-1`...),
    /// `speed` (double, default 1), `duration` (double, simulated seconds), `seed` (int, default 1),
    /// `step.length` (double, metres), `imu.rate` (double, Hz), `start.latitude`, `start.longitude` (double,
    /// degrees), `hard.iron` (double, µT), `soft.iron` (double), `figure.eight` (bool, default true), `course`
    /// (double, degrees: a straight walk instead of the park loop), `exact.sensors` (bool: no noise, iron, sway,
    /// impacts, figure-8 or GPS error, ``WalkerConfiguration/ideal(seed:)``, whatever the iron and figure-8 keys say).
    /// - Parameter config: The service's configuration.
    public init(config: ConfigReader) {
        var walker = WalkerConfiguration()
        walker.seed = UInt64(truncatingIfNeeded: config.int(forKey: "seed", default: Int(walker.seed)))
        walker.stepLength = config.number(forKey: "step.length", default: walker.stepLength)
        walker.imuRate = config.number(forKey: "imu.rate", default: walker.imuRate)
        walker.startLatitude = config.number(forKey: "start.latitude", default: walker.startLatitude)
        walker.startLongitude = config.number(forKey: "start.longitude", default: walker.startLongitude)
        walker.hardIronMagnitude = config.number(forKey: "hard.iron", default: walker.hardIronMagnitude)
        walker.softIronDistortion = config.number(forKey: "soft.iron", default: walker.softIronDistortion)
        walker.figureEight = config.bool(forKey: "figure.eight", default: walker.figureEight)
        if config.bool(forKey: "exact.sensors", default: false) { walker.makeExact() }
        if let course = config.number(forKey: "course") { walker.route = .straight(heading: course) }
        let device = config.string(forKey: "device", default: Self.defaults.devices[0])
        self.init(
            devices: config.int(forKey: "devices").map(Self.fleet) ?? [device], walker: walker,
            speed: config.number(forKey: "speed", default: Self.defaults.speed),
            duration: config.number(forKey: "duration"))
    }
}
