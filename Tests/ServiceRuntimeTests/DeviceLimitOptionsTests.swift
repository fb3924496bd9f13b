import ArgumentParser
import Configuration
import ServiceRuntime
import Testing

@Suite("--max-devices: the command line, then MAX_DEVICES, then max.devices in the file")
struct DeviceLimitOptionsTests {
    @Test("the flag becomes max.devices and wins over the environment; without it the environment counts")
    func hierarchy() async throws {
        var values = CommandLineValues()
        try DeviceLimitOptions.parse(["--max-devices", "7"]).set(into: &values)
        let flagged = try await ConfigurationLoader.load(
            service: "none", commandLine: values.values, configFile: nil, environment: ["MAX_DEVICES": "9"])
        #expect(flagged.int(forKey: "max.devices") == 7)

        var none = CommandLineValues()
        try DeviceLimitOptions.parse([]).set(into: &none)
        #expect(none.values.isEmpty)
        let environment = try await ConfigurationLoader.load(
            service: "none", commandLine: none.values, configFile: nil, environment: ["MAX_DEVICES": "9"])
        #expect(environment.int(forKey: "max.devices") == 9)
    }

    @Test("the help gives the default")
    func help() {
        let help = DeviceLimitOptions.helpMessage(columns: 1_000)
        #expect(help.contains("--max-devices"))
        #expect(help.contains("MAX_DEVICES, default 100000"))
    }
}
