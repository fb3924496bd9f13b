public import Bus
public import Configuration
public import MosquittoBus

extension MosquittoConfiguration {
    /// Reads the MQTT settings of a service.
    ///
    /// Keys (environment variable in brackets): `mqtt.host` (MQTT_HOST, default localhost), `mqtt.port`
    /// (MQTT_PORT, 1883), `mqtt.username`, `mqtt.password` (secret), `mqtt.tls.ca`, `mqtt.tls.cert`,
    /// `mqtt.tls.key`, `mqtt.protocol` (5 or 3.1.1), `mqtt.client.id` (MQTT_CLIENT_ID, default
    /// `stepcompass-<service>`), `mqtt.keepalive` (30), `mqtt.session.expiry` (86400 s),
    /// `mqtt.inflight` (1000).
    /// - Throws: ``ConfigurationError`` naming the bad key.
    public init(config: ConfigReader, service: String, will: BusMessage?) throws {
        let protocolText = config.string(forKey: "mqtt.protocol", default: "5")
        let version: ProtocolVersion
        switch protocolText {
        case "5", "5.0", "v5": version = .v5
        case "3.1.1", "4", "v311", "311": version = .v311
        default: throw ConfigurationError("MQTT_PROTOCOL '\(protocolText)' is not 5 or 3.1.1")
        }
        var tls: TLS?
        if let ca = config.string(forKey: "mqtt.tls.ca"), !ca.isEmpty {
            tls = TLS(caFile: ca, certificateFile: config.string(forKey: "mqtt.tls.cert"), keyFile: config.string(forKey: "mqtt.tls.key"))
        }
        let username = config.string(forKey: "mqtt.username").flatMap { $0.isEmpty ? nil : $0 }
        let password = config.string(forKey: "mqtt.password", isSecret: true).flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            host: config.string(forKey: "mqtt.host", default: "localhost"),
            port: config.int(forKey: "mqtt.port", default: 1883),
            clientID: config.string(forKey: "mqtt.client.id", default: "stepcompass-\(service)"),
            username: username,
            password: password,
            tls: tls,
            protocolVersion: version,
            keepAlive: config.int(forKey: "mqtt.keepalive", default: 30),
            sessionExpiry: UInt32(clamping: config.int(forKey: "mqtt.session.expiry", default: 86_400)),
            will: will,
            maxInflight: config.int(forKey: "mqtt.inflight", default: 1_000)
        )
        do { try validate() } catch { throw ConfigurationError(error.message) }
    }
}
