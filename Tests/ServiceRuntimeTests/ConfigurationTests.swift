import ArgumentParser
import Configuration
import Foundation
import MosquittoBus
import ServiceRuntime
import Testing

@Suite("Configuration hierarchy")
struct ConfigurationTests {
    func file(_ json: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString).json")
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test("flags win over the environment, which wins over the file, which wins over defaults")
    func precedence() async throws {
        let path = try file(#"{"mqtt": {"host": "file-host", "port": 1111, "keepalive": 45}, "topic": {"prefix": "from-file"}}"#)
        let options = try RuntimeOptions.parse(["--mqtt-host", "flag-host"])
        let config = try await ConfigurationLoader.load(
            service: "position", commandLine: options.commandLineValues, configFile: path,
            environment: ["MQTT_HOST": "env-host", "MQTT_PORT": "2222"])
        let mqtt = try MosquittoConfiguration(config: config, service: "position", will: nil)
        #expect(mqtt.host == "flag-host")
        #expect(mqtt.port == 2222)
        #expect(mqtt.keepAlive == 45)
        #expect(mqtt.clientID == "stepcompass-position")
        #expect(mqtt.protocolVersion == .v5)
        #expect(config.string(forKey: "topic.prefix") == "from-file")
    }

    @Test("bad values are refused with the variable's name")
    func badValues() async throws {
        for (environment, name) in [(["MQTT_PROTOCOL": "7"], "MQTT_PROTOCOL"), (["MQTT_PORT": "70000"], "port")] {
            let config = try await ConfigurationLoader.load(service: "x", commandLine: [:], configFile: nil, environment: environment)
            #expect {
                _ = try MosquittoConfiguration(config: config, service: "x", will: nil)
            } throws: { error in
                "\(error)".contains(name)
            }
        }
        let config = try await ConfigurationLoader.load(service: "x", commandLine: [:], configFile: nil, environment: ["LOG_LEVEL": "loud"])
        #expect(throws: ConfigurationError.self) { try LogSettings(config: config) }
    }

    @Test("a missing explicit configuration file is an error")
    func missingFile() async {
        await #expect(throws: ConfigurationError.self) {
            _ = try await ConfigurationLoader.load(service: "x", commandLine: [:], configFile: "/nonexistent/config.json", environment: [:])
        }
    }
}
