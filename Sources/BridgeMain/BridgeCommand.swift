import ArgumentParser
import BridgeService
import Configuration
import ServiceRuntime

/// `stepcompass-bridge`: real phones in.
@main
struct BridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepcompass-bridge",
        abstract:
            "StepCompass phone bridge: Sensor Logger (HTTP or MQTT push), OwnTracks and gpsd become the contract's device topics; steps from the raw accelerometer.",
        discussion: """
            Sensor Logger (Android and iOS): in the app's Settings > Data Streaming, set the HTTP push URL to \
            http://THIS-HOST:8090/sensor-logger?device=my-phone&token=TOKEN, or MQTT push to this stack's broker \
            over WebSockets (port 9001) with topic sensor-logger. OwnTracks: point the app at the broker; its \
            owntracks/USER/DEVICE locations become the device USER-DEVICE. gpsd: --gpsd localhost:2947. Devices \
            that send imu but no pedometer count get steps from the detector ("source": "detector").

            Without --token or --device-tokens the HTTP push listens on 127.0.0.1 only. Every option can also be \
            set with the environment variable of the same name (--http-port is HTTP_PORT, --token is TOKEN) or in \
            a JSON file (--config, default Config/bridge.json). Stop with SIGTERM or Ctrl-C.
            """)

    private static let defaults = BridgeConfiguration.defaults

    @OptionGroup var runtime: RuntimeOptions

    // `.unconditional`: `--http-port -1` takes the -1 as its value, not as an option.
    @Option(
        name: .customLong("http-port"), parsing: .unconditional,
        help: "Port of the HTTP push (env HTTP_PORT, default \(defaults.httpPort); 0 picks a free port, -1 turns it off).")
    var httpPort: Int?

    @Option(name: .customLong("http-host"), help: "Address of the HTTP push (env HTTP_HOST; default 127.0.0.1, or 0.0.0.0 once a token is set).")
    var httpHost: String?

    @Option(help: "A token every phone may use: HTTP basic password, bearer token or ?token= (env TOKEN; prefer the environment).")
    var token: String?

    @Option(name: .customLong("device-tokens"), help: "Per-device tokens, DEVICE=TOKEN,DEVICE=TOKEN (env DEVICE_TOKENS).")
    var deviceTokens: String?

    @Option(
        name: .customLong("sensor-logger-topic"),
        help: "Topic of Sensor Logger's MQTT push (env SENSOR_LOGGER_TOPIC, default \(defaults.sensorLoggerTopic); empty turns it off).")
    var sensorLoggerTopic: String?

    @Option(
        name: .customLong("owntracks-topic"),
        help: "OwnTracks topic filter (env OWNTRACKS_TOPIC, default \(defaults.ownTracksTopic); empty turns it off).")
    var ownTracksTopic: String?

    @Option(help: "Read TPV fixes from gpsd at HOST:PORT (env GPSD).")
    var gpsd: String?

    @Option(name: .customLong("gpsd-device"), help: "Device id of gpsd's fixes (env GPSD_DEVICE, default \(defaults.gpsdDevice)).")
    var gpsdDevice: String?

    @Option(
        name: .customLong("detect-steps"),
        help: "Detect steps for devices without a pedometer: true or false (env DETECT_STEPS, default \(defaults.detectSteps)).")
    var detectSteps: Bool?

    @Option(
        name: .customLong("step-length-scale"), help: "Multiplies the step-length model (env STEP_LENGTH_SCALE, default \(defaults.stepLengthScale))."
    )
    var stepLengthScale: Double?

    @Option(
        name: .customLong("reorder-delay"),
        help: "Seconds of sample time samples are held to undo out-of-order batches (env REORDER_DELAY, default \(defaults.reorderDelay)).")
    var reorderDelay: Double?

    @Option(name: .customLong("max-body"), help: "Largest push body in bytes (env MAX_BODY, default \(defaults.maxBody)).")
    var maxBody: Int?

    @Option(
        name: .customLong("max-devices"),
        help: "Phones tracked at most; the idle longest are forgotten first (env MAX_DEVICES, default \(defaults.maxDevices)).")
    var maxDevices: Int?

    func run() async throws {
        var values = CommandLineValues()
        values.set("http.port", httpPort)
        values.set("http.host", httpHost)
        values.set("token", token, secret: true)
        values.set("device.tokens", deviceTokens, secret: true)
        values.set("sensor.logger.topic", sensorLoggerTopic)
        values.set("owntracks.topic", ownTracksTopic)
        values.set("gpsd", gpsd)
        values.set("gpsd.device", gpsdDevice)
        values.set("detect.steps", detectSteps.map { ConfigContent.bool($0) })
        values.set("step.length.scale", stepLengthScale)
        values.set("reorder.delay", reorderDelay)
        values.set("max.body", maxBody)
        values.set("max.devices", maxDevices)
        let runner = try await ServiceRunner.prepare(service: "bridge", options: runtime, commandLine: values.values)
        try await runner.run { config, logger, bus in
            do {
                return try buildBridge(config: config, logger: logger, bus: bus)
            } catch let error as BridgeError {
                throw ValidationError(error.description)
            }
        }
    }
}
