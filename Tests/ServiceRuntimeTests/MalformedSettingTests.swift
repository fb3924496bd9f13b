import Configuration
import Foundation
import Logging
import ServiceRuntime
import Testing

@Suite("Malformed settings stop the start instead of falling back to defaults")
struct MalformedSettingTests {
    @Test("SPEED=fast is named, with its source, and the runner refuses to start")
    func malformedEnvironmentValue() async throws {
        let recorder = MalformedSettingRecorder()
        let config = try await ConfigurationLoader.load(
            service: "x", commandLine: [:], configFile: nil, environment: ["SPEED": "fast", "MAX_RATE": "4"],
            accessReporter: recorder)
        // The library falls back to the default for the malformed value, as documented...
        #expect(config.double(forKey: "speed", default: 1) == 1)
        #expect(config.double(forKey: "max.rate", default: 10) == 4)
        // ...and the recorder remembers it.
        let messages = recorder.messages
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message.contains("'speed'"))
        #expect(message.contains("SPEED"))
        #expect(message.contains("--speed"))

        let runner = ServiceRunner(service: "x", config: config, logger: Logger(label: "test"), topics: Topics(), malformed: recorder)
        #expect(throws: ConfigurationError.self) { try runner.checkSettings() }
    }

    @Test("Well-formed and missing settings pass the check")
    func wellFormed() async throws {
        let recorder = MalformedSettingRecorder()
        let config = try await ConfigurationLoader.load(
            service: "x", commandLine: [:], configFile: nil, environment: ["SPEED": "2.5"], accessReporter: recorder)
        #expect(config.double(forKey: "speed", default: 1) == 2.5)
        #expect(config.int(forKey: "seed", default: 7) == 7)
        #expect(recorder.messages.isEmpty)
        let runner = ServiceRunner(service: "x", config: config, logger: Logger(label: "test"), topics: Topics(), malformed: recorder)
        try runner.checkSettings()
    }
}
