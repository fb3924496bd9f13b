// swift-tools-version:6.2
// StepCompass: pedestrian navigation as Swift services on an MQTT bus.

import PackageDescription

/// One list of compiler settings for every target (as swift-log and swift-configuration do).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let log = Target.Dependency.product(name: "Logging", package: "swift-log")
let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let configuration = Target.Dependency.product(name: "Configuration", package: "swift-configuration")
let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics")

/// A thin `main` over library code: every executable has the same shape.
func serviceExecutable(_ name: String, module: String, dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: module,
        dependencies: ["ServiceRuntime", "Bus", argumentParser, configuration, log, lifecycle] + dependencies,
        path: "Sources/\(module)"
    )
}

let package = Package(
    name: "StepCompass",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Bus", targets: ["Bus"]),
        .library(name: "InMemoryBus", targets: ["InMemoryBus"]),
        .library(name: "MosquittoBus", targets: ["MosquittoBus"]),
        .library(name: "BusTesting", targets: ["BusTesting"]),
        .library(name: "ServiceRuntime", targets: ["ServiceRuntime"]),
        .library(name: "GeoMagnetism", targets: ["GeoMagnetism"]),
        .library(name: "CompassKit", targets: ["CompassKit"]),
        .library(name: "PositionKit", targets: ["PositionKit"]),
        .library(name: "WalkerSimulation", targets: ["WalkerSimulation"]),
        .library(name: "MarkerKit", targets: ["MarkerKit"]),
        .library(name: "DashboardKit", targets: ["DashboardKit"]),
        .library(name: "StepDetection", targets: ["StepDetection"]),
        .library(name: "PhoneFormats", targets: ["PhoneFormats"]),
        .library(name: "StepCompassContract", targets: ["StepCompassContract"]),
        .library(name: "ActivityKit", targets: ["ActivityKit"]),
        .library(name: "ActivityStore", targets: ["ActivityStore"]),
        .library(name: "JournalKit", targets: ["JournalKit"]),
        .library(name: "JournalStore", targets: ["JournalStore"]),
        .executable(name: "stepcompass-sensors", targets: ["SensorsMain"]),
        .executable(name: "stepcompass-compass", targets: ["CompassMain"]),
        .executable(name: "stepcompass-position", targets: ["PositionMain"]),
        .executable(name: "stepcompass-markers", targets: ["MarkersMain"]),
        .executable(name: "stepcompass-dashboard", targets: ["DashboardMain"]),
        .executable(name: "stepcompass-bridge", targets: ["BridgeMain"]),
        .executable(name: "stepcompass-activity", targets: ["ActivityMain"]),
        .executable(name: "stepcompass-journal", targets: ["JournalMain"]),
        .executable(name: "stepcompass", targets: ["StepCompassCLI"]),
        .executable(name: "stepcompass-buslab", targets: ["StepCompassBusLab"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
    ],
    targets: [
        // MARK: The bus: protocol, its two implementations, and test support
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"]), .brew(["mosquitto"])]
        ),
        .target(name: "Bus"),
        .target(name: "InMemoryBus", dependencies: ["Bus"]),
        .target(name: "MosquittoBus", dependencies: ["Bus", "CMosquitto", log]),
        .target(
            name: "BusTesting",
            dependencies: [
                "Bus", "InMemoryBus", "MosquittoBus", log,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // Helpers only this package's tests use (package access, not a product), as swift-configuration's
        // ConfigurationTestingInternal: the one seeded generator, running a built service group.
        .target(name: "StepCompassTesting", dependencies: ["WalkerSimulation", lifecycle]),

        // MARK: Pure logic: no I/O, no bus, unit-tested directly
        .target(name: "GeoMagnetism", resources: [.copy("Resources/WMM.COF")]),
        .target(name: "CompassKit"),
        .target(name: "PositionKit"),
        .target(
            name: "WalkerSimulation",
            dependencies: ["GeoMagnetism", "CompassKit", .product(name: "RealModule", package: "swift-numerics")]),
        .target(name: "MarkerKit"),
        .target(name: "DashboardKit", dependencies: ["MarkerKit", "StepCompassContract"]),
        .target(name: "StepDetection"),
        .target(name: "StepCompassContract"),
        .target(name: "PhoneFormats", dependencies: ["StepCompassContract"]),
        .target(name: "ActivityKit", dependencies: ["StepCompassContract"]),
        .target(name: "JournalKit", dependencies: ["StepCompassContract"]),
        .target(name: "HomeAssistantKit"),

        // MARK: Storage: the activity store protocol and its two implementations (SQLite, PostgreSQL)
        .target(
            name: "ActivityStore",
            dependencies: [
                "ActivityKit", log,
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),

        // MARK: Storage: the journal's walks, routes and photos, in the same databases as the activity history
        .target(
            name: "JournalStore",
            dependencies: [
                "JournalKit", "ActivityStore", log,
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),

        // MARK: The runtime every executable shares
        .target(
            name: "ServiceRuntime",
            dependencies: [
                "Bus", "MosquittoBus", "StepCompassContract", log, lifecycle, configuration, argumentParser,
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        // MARK: HTTP fetching as the services that call out share it: bounded bodies, one failure classification
        .target(
            name: "HTTPFetching",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),

        // MARK: The services' logic over the bus protocol (tested on the in-memory bus)
        .target(name: "PositionService", dependencies: ["Bus", "ServiceRuntime", "PositionKit", log, lifecycle, configuration, metrics]),
        .target(
            name: "SensorsService",
            dependencies: [
                "Bus", "ServiceRuntime", "WalkerSimulation", "GeoMagnetism", "PhoneFormats", "StepDetection", log, lifecycle,
                configuration, .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        .target(
            name: "CompassService",
            dependencies: [
                "Bus", "ServiceRuntime", "CompassKit", "GeoMagnetism", "StepDetection", log, lifecycle, configuration, metrics,
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]),
        .target(
            name: "MarkerService",
            dependencies: [
                "Bus", "ServiceRuntime", "MarkerKit", "HTTPFetching", log, configuration, lifecycle, metrics,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),

        .target(
            name: "DashboardService",
            dependencies: [
                "Bus", "ServiceRuntime", "DashboardKit", "HomeAssistantKit", "HomeAssistantService", log, lifecycle, configuration, metrics,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.copy("Resources/Public")]
        ),
        .target(
            name: "BridgeService",
            dependencies: [
                "Bus", "ServiceRuntime", "PhoneFormats", "StepDetection", log, lifecycle, configuration, metrics,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "ActivityService",
            dependencies: [
                "Bus", "ServiceRuntime", "ActivityKit", "ActivityStore", log, lifecycle, configuration,
                .product(name: "Metrics", package: "swift-metrics"),
            ]),
        .target(
            name: "JournalService",
            dependencies: [
                "Bus", "ServiceRuntime", "JournalKit", "JournalStore", "HTTPFetching", log, lifecycle, configuration,
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(name: "HomeAssistantService", dependencies: ["Bus", "ServiceRuntime", "HomeAssistantKit", log, lifecycle]),
        .target(name: "StepCompassClient", dependencies: ["Bus", "ServiceRuntime", "DashboardKit", log]),

        // MARK: Executables (thin: configuration, wiring, lifecycle)
        serviceExecutable("stepcompass-sensors", module: "SensorsMain", dependencies: ["SensorsService"]),
        serviceExecutable("stepcompass-compass", module: "CompassMain", dependencies: ["CompassService"]),
        serviceExecutable("stepcompass-position", module: "PositionMain", dependencies: ["PositionService"]),
        serviceExecutable("stepcompass-markers", module: "MarkersMain", dependencies: ["MarkerService"]),
        serviceExecutable("stepcompass-dashboard", module: "DashboardMain", dependencies: ["DashboardService"]),
        serviceExecutable("stepcompass-bridge", module: "BridgeMain", dependencies: ["BridgeService"]),
        serviceExecutable("stepcompass-activity", module: "ActivityMain", dependencies: ["ActivityService"]),
        serviceExecutable("stepcompass-journal", module: "JournalMain", dependencies: ["JournalService", "JournalKit"]),
        .executableTarget(
            name: "StepCompassCLI",
            dependencies: ["StepCompassClient", "ServiceRuntime", "Bus", "MosquittoBus", "DashboardKit", argumentParser, configuration, log],
            path: "Sources/StepCompassCLI"
        ),
        .executableTarget(
            name: "StepCompassBusLab",
            dependencies: [
                "Bus", "MosquittoBus", "BusTesting", "StepDetection", "StepCompassContract", "ActivityStore", "ActivityKit", "MarkerKit",
                "WalkerSimulation", "StepCompassTesting", "PhoneFormats", "SensorsService", "StepCompassClient", "ServiceRuntime", argumentParser,
                log,
            ],
            path: "Sources/StepCompassBusLab"
        ),

        // MARK: Tests
        .testTarget(
            name: "GeoMagnetismTests",
            dependencies: ["GeoMagnetism"],
            resources: [
                .copy("Resources/WMM2025_TEST_VALUES.txt"),
                .copy("Resources/WMM2025_FINAL_TEST_VALUES.txt"),
                .copy("Resources/WMM2025_ahrs.COF"),
                .copy("Resources/WMM2020.COF"),
                .copy("Resources/WMM2020testvalues.txt"),
            ]
        ),
        .testTarget(name: "CompassKitTests", dependencies: ["StepCompassTesting", "CompassKit", "WalkerSimulation"]),
        .testTarget(name: "PositionKitTests", dependencies: ["StepCompassTesting", "PositionKit"]),
        .testTarget(name: "WalkerSimulationTests", dependencies: ["WalkerSimulation", "PositionKit", "GeoMagnetism"]),
        .testTarget(name: "MarkerKitTests", dependencies: ["StepCompassTesting", "MarkerKit"]),
        .testTarget(name: "StepDetectionTests", dependencies: ["StepDetection"]),
        .testTarget(name: "PhoneFormatsTests", dependencies: ["StepCompassTesting", "PhoneFormats", "StepCompassContract"]),
        .testTarget(
            name: "BridgeServiceTests",
            dependencies: [
                "StepCompassTesting", "BridgeService", "Bus", "InMemoryBus", "BusTesting", "ServiceRuntime", "MosquittoBus", "WalkerSimulation",
                "PhoneFormats", "StepDetection", log, lifecycle, configuration,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PositionServiceTests",
            dependencies: [
                "StepCompassTesting", "PositionService", "Bus", "InMemoryBus", "BusTesting", "MosquittoBus", "ServiceRuntime", "PositionKit", log,
                lifecycle, configuration,
            ]),
        .testTarget(
            name: "SensorsServiceTests",
            dependencies: [
                "SensorsService", "Bus", "InMemoryBus", "BusTesting", "ServiceRuntime", "WalkerSimulation", "StepDetection", log,
                configuration, .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        .testTarget(
            name: "CompassServiceTests",
            dependencies: [
                "StepCompassTesting", "CompassService", "Bus", "InMemoryBus", "BusTesting", "ServiceRuntime", "CompassKit", "GeoMagnetism",
                "WalkerSimulation", log,
            ]),
        .testTarget(
            name: "MarkerServiceTests",
            dependencies: [
                "StepCompassTesting", "MarkerService", "Bus", "InMemoryBus", "BusTesting", "ServiceRuntime", "MarkerKit", "MosquittoBus",
                configuration, log,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "DashboardKitTests", dependencies: ["DashboardKit", "MarkerKit", "StepCompassContract"]),
        .testTarget(name: "ActivityKitTests", dependencies: ["ActivityKit"]),
        .testTarget(
            name: "HomeAssistantTests",
            dependencies: [
                "HomeAssistantKit", "HomeAssistantService", "Bus", "InMemoryBus", "BusTesting",
                "ServiceRuntime", log, lifecycle,
            ]),
        .testTarget(name: "JournalKitTests", dependencies: ["StepCompassTesting", "JournalKit"], resources: [.copy("Resources/gpx-1.1.xsd")]),
        .testTarget(
            name: "JournalStoreTests",
            dependencies: [
                "JournalStore", "JournalKit", "ActivityStore", "BusTesting", log,
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        .testTarget(
            name: "ActivityStoreTests",
            dependencies: [
                "ActivityStore", "ActivityKit", "BusTesting", log,
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "ActivityServiceTests",
            dependencies: [
                "StepCompassTesting", "MosquittoBus", "ActivityService", "ActivityStore", "ActivityKit", "Bus", "InMemoryBus", "BusTesting",
                "ServiceRuntime",
                log, lifecycle, configuration,
            ]
        ),
        .testTarget(
            name: "JournalServiceTests",
            dependencies: [
                "StepCompassTesting", "MosquittoBus", "JournalService", "JournalStore", "JournalKit", "Bus", "InMemoryBus", "BusTesting",
                "ServiceRuntime", log, lifecycle, configuration, .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "DashboardServiceTests",
            dependencies: [
                "StepCompassTesting", "DashboardService", "DashboardKit", "Bus", "InMemoryBus", "BusTesting", "ServiceRuntime", "MosquittoBus", log,
                lifecycle,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "StepCompassClientTests",
            dependencies: ["StepCompassClient", "DashboardKit", "Bus", "InMemoryBus", "BusTesting", "ServiceRuntime", log]),
        .testTarget(name: "BusTests", dependencies: ["Bus", "InMemoryBus", "MosquittoBus", "BusTesting"]),
        .testTarget(
            name: "StackTests",
            dependencies: [
                "Bus", "MosquittoBus", "BusTesting", "StepCompassContract", "StepDetection", "WalkerSimulation", log,
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(name: "MosquittoBusTests", dependencies: ["Bus", "MosquittoBus", "BusTesting", "CMosquitto"]),
        .testTarget(
            name: "ServiceRuntimeTests",
            dependencies: [
                "StepCompassTesting", "ServiceRuntime", "Bus", "InMemoryBus", "BusTesting", "MosquittoBus", configuration, log, argumentParser,
                metrics,
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
}

// MARK: Benchmarks (ordo-one/package-benchmark), only when asked for, so `make test` does not build them:
// `STEPCOMPASS_BENCHMARKS=1 swift package --scratch-path .build-benchmarks benchmark` (or `make benchmark`).
if Context.environment["STEPCOMPASS_BENCHMARKS"] != nil {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
    let benchmark = Target.Dependency.product(name: "Benchmark", package: "package-benchmark")
    package.targets += [
        .executableTarget(
            name: "MarkerBenchmarks",
            dependencies: ["MarkerKit", "WalkerSimulation", benchmark],
            path: "Benchmarks/MarkerBenchmarks",
            swiftSettings: strictSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "CompassBenchmarks",
            dependencies: ["CompassKit", "GeoMagnetism", benchmark],
            path: "Benchmarks/CompassBenchmarks",
            swiftSettings: strictSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
}

// MARK: Fuzz targets (libFuzzer), only when asked for, so `swift build` and `make test` never see them: each decoder
// of outside bytes in an executable whose `main` is libFuzzer's (hence `-parse-as-library`), built with
// `STEPCOMPASS_FUZZ=1 swift build --scratch-path .build-fuzz --sanitize=fuzzer --sanitize=address --product FuzzX`
// by `scripts/fuzz.sh` (`make fuzz`, `make fuzz-ci`).
if Context.environment["STEPCOMPASS_FUZZ"] != nil {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzFastReaders", ["StepCompassContract"]),
        ("FuzzTimestamp", ["StepCompassContract"]),
        ("FuzzGeoJSON", ["MarkerKit"]),
        ("FuzzCommands", ["StepCompassContract"]),
        ("FuzzDeviceMessages", ["StepCompassContract"]),
        ("FuzzDashboard", ["DashboardKit", "StepCompassContract"]),
        ("FuzzPhoneBridge", ["PhoneFormats", "StepCompassContract"]),
        ("FuzzPhoneExports", ["PhoneFormats", "StepCompassContract"]),
        ("FuzzPhotoAnswers", ["JournalKit"]),
    ]
    package.targets.append(.target(name: "FuzzSupport", path: "Sources/FuzzSupport", swiftSettings: strictSettings))
    for target in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: target.name,
                dependencies: ["FuzzSupport"] + target.dependencies,
                path: "Sources/\(target.name)",
                swiftSettings: strictSettings + [.unsafeFlags(["-parse-as-library"])]
            ))
    }
}
