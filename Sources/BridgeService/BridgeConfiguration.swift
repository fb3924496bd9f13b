public import Configuration
import Foundation

/// The phone bridge's settings.
public struct BridgeConfiguration: Sendable, Hashable {
    /// The defaults: HTTP push on 127.0.0.1:8090 (every interface once a token is set), Sensor Logger's MQTT
    /// push on `sensor-logger`, OwnTracks on `owntracks/+/+`, no gpsd, step detection on.
    public static let defaults = BridgeConfiguration()

    /// Address of the HTTP push listener; nil: 127.0.0.1 without a token, 0.0.0.0 with one.
    public var httpHost: String?
    /// Port of the HTTP push listener (Sensor Logger's `POST /sensor-logger`); 0 picks a free port, -1 turns it off.
    public var httpPort: Int
    /// One token that every device may use (HTTP basic password, bearer token, or `token` query parameter).
    public var token: String?
    /// Per-device tokens, `device=token` pairs.
    public var deviceTokens: [String: String]
    /// The MQTT topic Sensor Logger publishes its push bodies to (over WebSockets); empty turns it off.
    public var sensorLoggerTopic: String
    /// The OwnTracks topic filter (`owntracks/USER/DEVICE`); empty turns it off.
    public var ownTracksTopic: String
    /// `HOST:PORT` of a gpsd to read TPV reports from; nil: none.
    public var gpsd: String?
    /// The device id for gpsd's fixes.
    public var gpsdDevice: String
    /// Whether to detect steps from the raw accelerometer of devices that send `imu` but no pedometer count.
    public var detectSteps: Bool
    /// The largest push body, bytes.
    public var maxBody: Int
    /// Seconds of sample time a device's samples are held to put out-of-order batches back in order.
    public var reorderDelay: Double
    /// Devices tracked at most; the ones idle longest are forgotten first.
    public var maxDevices: Int
    /// Multiplies the step-length model's estimate (a per-deployment calibration; 1 = the model's own).
    public var stepLengthScale: Double

    public init(
        httpHost: String? = nil, httpPort: Int = 8090, token: String? = nil, deviceTokens: [String: String] = [:],
        sensorLoggerTopic: String = "sensor-logger", ownTracksTopic: String = "owntracks/+/+", gpsd: String? = nil,
        gpsdDevice: String = "gps", detectSteps: Bool = true, maxBody: Int = 8 << 20, reorderDelay: Double = 1,
        maxDevices: Int = 10_000, stepLengthScale: Double = 1
    ) {
        self.httpHost = httpHost
        self.httpPort = httpPort
        self.token = token
        self.deviceTokens = deviceTokens
        self.sensorLoggerTopic = sensorLoggerTopic
        self.ownTracksTopic = ownTracksTopic
        self.gpsd = gpsd
        self.gpsdDevice = gpsdDevice
        self.detectSteps = detectSteps
        self.maxBody = maxBody
        self.reorderDelay = reorderDelay
        self.maxDevices = maxDevices
        self.stepLengthScale = stepLengthScale
    }

    /// Whether any token is configured.
    public var hasTokens: Bool { token != nil || !deviceTokens.isEmpty }

    /// The address the HTTP push listens on.
    public var effectiveHTTPHost: String { httpHost ?? (hasTokens ? "0.0.0.0" : "127.0.0.1") }

    /// Checks the settings.
    /// - Throws: ``BridgeError`` naming the option.
    public func validate() throws(BridgeError) {
        guard (-1...65_535).contains(httpPort) else { throw .invalidConfiguration("--http-port must be -1...65535, got \(httpPort)") }
        if httpPort >= 0, !hasTokens, !Self.isLoopback(effectiveHTTPHost) {
            throw .invalidConfiguration(
                "--http-host \(effectiveHTTPHost) would open the push endpoint to the network without a token; set --token (TOKEN) or --device-tokens (DEVICE_TOKENS), or listen on 127.0.0.1"
            )
        }
        if let token, token.isEmpty { throw .invalidConfiguration("--token must not be empty") }
        if let gpsd, GPSDAddress(gpsd) == nil {
            throw .invalidConfiguration("--gpsd must be HOST:PORT, got '\(gpsd)'")
        }
        guard maxBody >= 1_024 else { throw .invalidConfiguration("--max-body must be at least 1024 bytes, got \(maxBody)") }
        guard reorderDelay.isFinite, reorderDelay >= 0, reorderDelay <= 60 else {
            throw .invalidConfiguration("--reorder-delay must be 0...60 seconds, got \(reorderDelay)")
        }
        guard maxDevices >= 1 else { throw .invalidConfiguration("--max-devices must be at least 1, got \(maxDevices)") }
        guard stepLengthScale.isFinite, stepLengthScale > 0.3, stepLengthScale < 3 else {
            throw .invalidConfiguration("--step-length-scale must be between 0.3 and 3, got \(stepLengthScale)")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "127.0.0.1" || host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

extension BridgeConfiguration {
    /// Reads the settings from configuration and validates them.
    ///
    /// Keys (each optional, defaults in ``defaults``): `http.host`, `http.port` (int), `token` (secret),
    /// `device.tokens` (secret, `device=token,device=token`), `sensor.logger.topic`, `owntracks.topic`,
    /// `gpsd` (`HOST:PORT`), `gpsd.device`, `detect.steps` (bool), `max.body` (int, bytes), `reorder.delay`
    /// (double, seconds), `max.devices` (int), `step.length.scale` (double).
    /// - Parameter config: The service's configuration.
    /// - Throws: ``BridgeError`` naming the option.
    public init(config: ConfigReader) throws(BridgeError) {
        let defaults = Self.defaults
        var tokens: [String: String] = [:]
        if let list = config.string(forKey: "device.tokens", isSecret: true), !list.isEmpty {
            for pair in list.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw .invalidConfiguration("--device-tokens must be DEVICE=TOKEN pairs separated by commas")
                }
                tokens[parts[0]] = parts[1]
            }
        }
        let token = config.string(forKey: "token", isSecret: true)
        self.init(
            httpHost: config.string(forKey: "http.host"),
            httpPort: config.int(forKey: "http.port", default: defaults.httpPort),
            token: token?.isEmpty == true ? nil : token,
            deviceTokens: tokens,
            sensorLoggerTopic: config.string(forKey: "sensor.logger.topic", default: defaults.sensorLoggerTopic),
            ownTracksTopic: config.string(forKey: "owntracks.topic", default: defaults.ownTracksTopic),
            gpsd: config.string(forKey: "gpsd").flatMap { $0.isEmpty ? nil : $0 },
            gpsdDevice: config.string(forKey: "gpsd.device", default: defaults.gpsdDevice),
            detectSteps: config.bool(forKey: "detect.steps", default: defaults.detectSteps),
            maxBody: config.int(forKey: "max.body", default: defaults.maxBody),
            reorderDelay: config.double(forKey: "reorder.delay", default: defaults.reorderDelay),
            maxDevices: config.int(forKey: "max.devices", default: defaults.maxDevices),
            stepLengthScale: config.double(forKey: "step.length.scale", default: defaults.stepLengthScale))
        try validate()
    }
}
