public import ArgumentParser
public import Configuration

/// The options every StepCompass executable takes: where the broker is, how to log, which topic root.
///
/// Every option is optional with no default here: a value given on the command line wins, then the
/// environment variable of the same name (`--mqtt-host` / `MQTT_HOST`), then the JSON file given with
/// `--config` (or `CONFIG_FILE`, default `Config/<service>.json`), then the built-in default. This is the
/// bridge swift-configuration recommends for swift-argument-parser.
public struct RuntimeOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("mqtt-host"), help: "MQTT broker host (env MQTT_HOST, default localhost).")
    public var mqttHost: String?

    @Option(name: .customLong("mqtt-port"), help: "MQTT broker port (env MQTT_PORT, default 1883).")
    public var mqttPort: Int?

    @Option(name: .customLong("mqtt-username"), help: "MQTT user name (env MQTT_USERNAME).")
    public var mqttUsername: String?

    @Option(name: .customLong("mqtt-password"), help: "MQTT password (env MQTT_PASSWORD; prefer the environment over the command line).")
    public var mqttPassword: String?

    @Option(name: .customLong("mqtt-tls-ca"), help: "CA certificate file: enables TLS (env MQTT_TLS_CA).")
    public var mqttTLSCA: String?

    @Option(name: .customLong("mqtt-tls-cert"), help: "Client certificate file for TLS (env MQTT_TLS_CERT).")
    public var mqttTLSCert: String?

    @Option(name: .customLong("mqtt-tls-key"), help: "Client key file for TLS (env MQTT_TLS_KEY).")
    public var mqttTLSKey: String?

    @Option(name: .customLong("mqtt-protocol"), help: "MQTT protocol version: 5 or 3.1.1 (env MQTT_PROTOCOL, default 5).")
    public var mqttProtocol: String?

    @Option(
        name: .customLong("mqtt-client-id"),
        help: "Stable MQTT client id, the key of the persistent session (env MQTT_CLIENT_ID, default stepcompass-<service>).")
    public var mqttClientID: String?

    @Option(name: .customLong("mqtt-keepalive"), help: "Keep-alive in seconds (env MQTT_KEEPALIVE, default 30).")
    public var mqttKeepAlive: Int?

    @Option(name: .customLong("topic-prefix"), help: "Topic root (env TOPIC_PREFIX, default stepcompass).")
    public var topicPrefix: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (env LOG_LEVEL, default info).")
    public var logLevel: String?

    @Option(name: .customLong("log-format"), help: "text or json (env LOG_FORMAT, default text).")
    public var logFormat: String?

    @Option(name: .customLong("metrics-port"), help: "Serve Prometheus metrics at http://HOST:PORT/metrics (env METRICS_PORT; off when not set).")
    public var metricsPort: Int?

    @Option(name: .customLong("metrics-host"), help: "Address of the metrics endpoint (env METRICS_HOST, default 127.0.0.1; 0.0.0.0 in a container).")
    public var metricsHost: String?

    @Option(name: .customLong("config"), help: "JSON configuration file (env CONFIG_FILE, default Config/<service>.json if it exists).")
    public var configFile: String?

    public init() {}

    /// The values given on the command line, as configuration keys.
    public var commandLineValues: [AbsoluteConfigKey: ConfigValue] {
        var values = CommandLineValues()
        values.set("mqtt.host", mqttHost)
        values.set("mqtt.port", mqttPort)
        values.set("mqtt.username", mqttUsername)
        values.set("mqtt.password", mqttPassword, secret: true)
        values.set("mqtt.tls.ca", mqttTLSCA)
        values.set("mqtt.tls.cert", mqttTLSCert)
        values.set("mqtt.tls.key", mqttTLSKey)
        values.set("mqtt.protocol", mqttProtocol)
        values.set("mqtt.client.id", mqttClientID)
        values.set("mqtt.keepalive", mqttKeepAlive)
        values.set("topic.prefix", topicPrefix)
        values.set("log.level", logLevel)
        values.set("log.format", logFormat)
        values.set("metrics.port", metricsPort)
        values.set("metrics.host", metricsHost)
        return values.values
    }
}
