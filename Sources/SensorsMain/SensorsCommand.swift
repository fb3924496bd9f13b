import ArgumentParser
import Configuration
import SensorsService
import ServiceRuntime

/// `stepcompass-sensors`: the sensor publisher (steps, IMU, location; a simulated walker by default).
@main
struct SensorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-sensors",
        abstract: "StepCompass the sensor publisher (steps, IMU, location; a simulated walker by default).",
        discussion: """
            Publishes simulated walkers (World Magnetic Model 2025 field), or records a device's topics to a file \
            of JSON lines (--record FILE), or publishes FILE again and exits (--replay FILE). FILE is such a \
            recording, a phyphox CSV export or a Sensor Logger CSV export (a .zip or its folder; the kind is told \
            from the content); an export is published as the device's permissions, imu, location and steps, at its \
            own times (or from now, when it has none). Every option \
            can also be set with the environment variable of the same name (--mqtt-host is MQTT_HOST, --speed is \
            SPEED) or in a JSON file (--config, default Config/sensors.json). Topics and payloads follow the \
            StepCompass bus contract (Docs/asyncapi.yaml). Stop with SIGTERM or Ctrl-C.
            """)

    @OptionGroup var runtime: RuntimeOptions

    @Option(help: "Device id to simulate, record or replay as (default walker-1).")
    var device: String?
    @Option(help: "Simulate a fleet of N walkers, walker-1 ... walker-N, each with its own seed.")
    var devices: Int?
    @Option(help: "Run F times faster than real time (default 1); timestamps stay in simulated time.")
    var speed: Double?
    @Option(help: "Seed of the walk, gait, iron and noise (default 1).")
    var seed: Int?
    @Option(name: .customLong("step-length"), help: "Mean step length in metres (default 0.75).")
    var stepLength: Double?
    @Option(name: .customLong("imu-rate"), help: "IMU samples per second (default 50).")
    var imuRate: Double?
    @Option(name: .customLong("start-latitude"), help: "Start latitude in degrees (default 48.1527).")
    var startLatitude: Double?
    @Option(name: .customLong("start-longitude"), help: "Start longitude in degrees (default 11.5918).")
    var startLongitude: Double?
    @Option(name: .customLong("hard-iron"), help: "Hard-iron offset magnitude in µT (default 10).")
    var hardIron: Double?
    @Option(name: .customLong("soft-iron"), help: "Soft-iron distortion, 0...0.2 (default 0.03).")
    var softIron: Double?
    @Flag(name: .customLong("no-figure-eight"), help: "Do not wave the phone in a figure-8 at the start.")
    var noFigureEight = false
    @Option(help: "Walk straight along this course, degrees clockwise from true north (default: a 540 m loop in a park).")
    var course: Double?
    @Flag(
        name: .customLong("exact-sensors"),
        help: "No sensor noise, iron, hand sway, step impacts, figure-8 or GPS error: readings are exact (for tests that compare runs)."
    )
    var exactSensors = false
    @Option(help: "Stop after this many simulated (or, when recording, wall-clock) seconds (default: run forever).")
    var duration: Double?
    @Option(help: "Record the device's topics to FILE (JSON lines) instead of simulating.")
    var record: String?
    @Option(
        help: "Publish FILE as the device, at --speed, then exit: a recording (--record), a phyphox export or a Sensor Logger export (zip or folder)."
    )
    var replay: String?

    func run() async throws {
        var values = CommandLineValues()
        values.set("device", device)
        values.set("devices", devices)
        values.set("speed", speed)
        values.set("seed", seed)
        values.set("step.length", stepLength)
        values.set("imu.rate", imuRate)
        values.set("start.latitude", startLatitude)
        values.set("start.longitude", startLongitude)
        values.set("hard.iron", hardIron)
        values.set("soft.iron", softIron)
        values.set("figure.eight", noFigureEight ? ConfigContent.bool(false) : nil)
        values.set("course", course)
        values.set("exact.sensors", exactSensors ? ConfigContent.bool(true) : nil)
        values.set("duration", duration)
        values.set("record", record)
        values.set("replay", replay)
        let runner = try await ServiceRunner.prepare(service: "sensors", options: runtime, commandLine: values.values)
        try await runner.run { config, logger, bus in
            try buildSensors(config: config, logger: logger, bus: bus)
        }
    }
}
