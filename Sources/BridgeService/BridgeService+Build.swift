public import Bus
public import Configuration
public import Logging
public import ServiceLifecycle
public import ServiceRuntime

/// Builds the phone bridge (`stepcompass-bridge`) over `bus`: the executable's `main` runs the group with signal
/// handling, and tests run it over an in-memory bus.
/// - Parameters:
///   - config: The configuration (``BridgeConfiguration/init(config:)`` and `topic.prefix`).
///   - logger: The service's logger.
///   - bus: The bus, not yet connected.
///   - onListening: Called with the HTTP push port once the bridge is online (the real port when `http.port` is 0).
/// - Returns: The bus connection, the HTTP push listener, the gpsd reader and the bus side, in one group.
/// - Throws: ``BridgeError`` for a bad setting.
public func buildBridge(
    config: ConfigReader, logger: Logger, bus: any ConnectableBus, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> ServiceGroup {
    let runtime = BusRuntime(service: "bridge", config: config, logger: logger, bus: bus)
    return try buildBridge(configuration: BridgeConfiguration(config: config), runtime: runtime, onListening: onListening)
}

/// Builds the phone bridge from a configuration value over a runtime's bus.
/// - Parameters:
///   - configuration: The bridge's settings.
///   - runtime: The service's bus runtime.
///   - onListening: Called with the HTTP push port once the bridge is online.
/// - Returns: The service group.
/// - Throws: ``BridgeError`` for a bad setting.
public func buildBridge(
    configuration: BridgeConfiguration, runtime: BusRuntime, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) throws(BridgeError) -> ServiceGroup {
    try configuration.validate()
    let context = runtime.context
    let steps = StepCounter(
        topics: context.topics, stepLengthScale: configuration.stepLengthScale, maxDevices: configuration.maxDevices,
        logger: context.logger)
    let metrics = BridgeMetrics(context.metrics, steps: steps)
    let ingest = PhoneIngest(context: context, configuration: configuration, steps: steps, metrics: metrics)
    var services: [any Service] = []
    var listening: AsyncStream<Int>?
    if configuration.httpPort >= 0 {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        listening = stream
        let routes = SensorLoggerRoutes(
            ingest: ingest, authorization: PushAuthorization(token: configuration.token, deviceTokens: configuration.deviceTokens),
            maxBody: configuration.maxBody, errors: context.errors, logger: context.logger)
        services.append(
            BridgeServer(
                routes: routes, host: configuration.effectiveHTTPHost, port: configuration.httpPort, logger: context.logger,
                listening: continuation))
    }
    if let gpsd = configuration.gpsd, let address = GPSDAddress(gpsd) {
        services.append(GPSDClient(host: address.host, port: address.port, device: configuration.gpsdDevice, ingest: ingest, context: context))
    }
    services.append(
        BridgeService(
            configuration: configuration, context: context, ingest: ingest, steps: steps, listening: listening,
            onListening: onListening))
    return runtime.group(services)
}
