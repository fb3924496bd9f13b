import Configuration
import Testing

@testable import MarkerService

@Suite struct RetryPolicyTests {
    @Test func delaysDoubleUpToTheMaximumWithJitter() {
        let policy = RetryPolicy(base: .seconds(1), maximum: .seconds(300))
        #expect(policy.ceilingDelay(afterFailures: 1) == .seconds(1))
        #expect(policy.ceilingDelay(afterFailures: 4) == .seconds(8))
        #expect(policy.ceilingDelay(afterFailures: 20) == .seconds(300))
        var generator = SystemRandomNumberGenerator()
        for failures in 1...12 {
            let delay = policy.delay(afterFailures: failures, using: &generator)
            let ceiling = policy.ceilingDelay(afterFailures: failures)
            #expect(delay <= ceiling && delay >= ceiling / 2)
        }
    }
}

@Suite struct MarkerServiceConfigurationTests {
    @Test func defaultsFollowTheContract() throws {
        let configuration = try MarkerServiceConfiguration(
            config: ConfigReader(provider: InMemoryProvider(values: [:])))
        #expect(configuration.source == "https://assets.acmeaom.com/interview-project/locations.json")
        #expect(configuration.maxBodyBytes == 64 * 1024 * 1024)
        #expect(configuration.maxFileBytes == 2 * 1024 * 1024 * 1024)
        #expect(configuration.refreshInterval == .seconds(900))
        #expect(configuration.collectionLimit == 10_000)
        #expect(configuration.retryBase == .seconds(1) && configuration.retryMax == .seconds(300))
        #expect(configuration.cacheDirectory == ".cache/markers")
    }

    @Test func keysOverrideTheDefaults() throws {
        let provider = InMemoryProvider(values: [
            "source": "Config/markers/sample-markers.geojson",
            "cache.dir": "",
            "read.timeout": .init(.double(0.25), isSecret: false),
            "refresh.interval": .init(.int(60), isSecret: false),
            "max.body": .init(.int(1024), isSecret: false),
            "max.file.size": .init(.int(500_000_000), isSecret: false),
        ])
        let configuration = try MarkerServiceConfiguration(config: ConfigReader(provider: provider))
        #expect(configuration.source == "Config/markers/sample-markers.geojson")
        #expect(configuration.cacheDirectory == nil)
        #expect(configuration.readTimeout == .milliseconds(250))
        #expect(configuration.refreshInterval == .seconds(60))
        #expect(configuration.maxBodyBytes == 1024)
        #expect(configuration.maxFileBytes == 500_000_000)
    }

    @Test func badValuesAreRefused() {
        let negative = InMemoryProvider(values: ["retry.base": .init(.double(-1), isSecret: false)])
        #expect(throws: MarkerServiceError.invalidConfiguration) {
            try MarkerServiceConfiguration(config: ConfigReader(provider: negative))
        }
        let noFile = InMemoryProvider(values: ["max.file.size": .init(.int(0), isSecret: false)])
        #expect(throws: MarkerServiceError.invalidConfiguration) {
            try MarkerServiceConfiguration(config: ConfigReader(provider: noFile))
        }
        let scheme = InMemoryProvider(values: ["source": "ftp://example.com/markers.json"])
        #expect(throws: MarkerServiceError.invalidConfiguration) {
            try MarkerServiceConfiguration(config: ConfigReader(provider: scheme))
        }
    }

    @Test func sourcesAndCacheKeys() {
        #expect(MarkerSource("https://example.com/a.json") == .url("https://example.com/a.json"))
        #expect(MarkerSource("file:///tmp/a.json") == .file("/tmp/a.json"))
        #expect(MarkerSource("Config/markers/sample-markers.geojson") == .file("Config/markers/sample-markers.geojson"))
        #expect(MarkerSource("") == nil)
        let key = MarkerCache.key(for: "https://example.com/a.json")
        #expect(key.count == 32)
        #expect(key == MarkerCache.key(for: "https://example.com/a.json"))
        #expect(key != MarkerCache.key(for: "https://example.com/b.json"))
    }
}
