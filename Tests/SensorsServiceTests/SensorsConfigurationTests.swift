import Configuration
import SensorsService
import Testing
import WalkerSimulation

/// The walk options the chaos run relies on: `course` and `exact.sensors`.
@Suite struct SensorsConfigurationTests {
    @Test("course walks straight; exact.sensors turns off noise, iron, sway, impacts, figure-8 and GPS error, whatever the iron keys say")
    func courseAndExactSensors() {
        let provider = InMemoryProvider(values: [
            "course": .init(.double(123.5), isSecret: false),
            "exact.sensors": .init(.bool(true), isSecret: false),
            "hard.iron": .init(.double(10), isSecret: false),
            "soft.iron": .init(.double(0.03), isSecret: false),
            "seed": .init(.int(9), isSecret: false),
            "imu.rate": .init(.double(10), isSecret: false),
        ])
        let walker = SensorsConfiguration(config: ConfigReader(provider: provider)).walker
        var expected = WalkerConfiguration.ideal(seed: 9)
        expected.imuRate = 10
        expected.route = .straight(heading: 123.5)
        #expect(walker == expected)
    }

    @Test("without them the walk is the park loop with realistic sensors")
    func defaults() {
        let walker = SensorsConfiguration(config: ConfigReader(provider: InMemoryProvider(values: [:]))).walker
        #expect(walker.route == .parkLoop)
        #expect(walker.magnetometerNoise > 0 && walker.hardIronMagnitude == 10 && walker.figureEight)
    }
}
