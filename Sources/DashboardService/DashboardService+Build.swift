public import Bus
public import Configuration
public import Logging
public import ServiceLifecycle
public import ServiceRuntime

/// Builds the dashboard (`stepcompass-dashboard`) over `bus`: the executable's `main` runs the group with
/// signal handling, and tests run it over an in-memory bus.
/// - Parameters:
///   - config: The configuration (``DashboardConfiguration/init(config:)`` and `topic.prefix`).
///   - logger: The service's logger.
///   - bus: The bus, not yet connected.
///   - onListening: Called with the HTTP port once the dashboard is online (the real port when `http.port` is 0).
/// - Returns: The bus connection, the HTTP server and the bus side, in one group.
/// - Throws: ``DashboardServiceError`` for a bad configuration or a missing page.
public func buildDashboard(
    config: ConfigReader, logger: Logger, bus: any ConnectableBus, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> ServiceGroup {
    let runtime = BusRuntime(service: "dashboard", config: config, logger: logger, bus: bus)
    let homeAssistant = try HomeAssistantSettings(config: config).publisher(context: runtime.context)
    return try buildDashboard(
        configuration: DashboardConfiguration(config: config), runtime: runtime, extra: homeAssistant.map { [$0] } ?? [],
        onListening: onListening)
}

/// Builds the dashboard from a configuration value (tests) over a runtime's bus.
/// - Parameters:
///   - configuration: Limits and addresses.
///   - runtime: The service's bus runtime.
///   - onListening: Called with the HTTP port once the dashboard is online.
/// - Returns: The bus connection, the HTTP server and the bus side, in one group.
/// - Throws: ``DashboardServiceError`` for a bad configuration or a missing page.
///   - extra: More services of the group (the Home Assistant discovery with `--home-assistant`).
public func buildDashboard(
    configuration: DashboardConfiguration, runtime: BusRuntime, extra: [any Service] = [],
    onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) throws(DashboardServiceError) -> ServiceGroup {
    // The token the routes require is the one this check resolved (the configuration reader validated it too).
    let accessToken = try configuration.validate()
    let context = runtime.context
    let files = try StaticFiles.bundled()
    let (listening, listened) = AsyncStream.makeStream(of: Int.self)
    let service = DashboardService(
        configuration: configuration, context: context, listening: listening, onListening: onListening, tokenRequired: accessToken != nil)
    let routes = DashboardRoutes(
        hub: service.hub, files: files, bus: context.bus, topics: context.topics, configuration: configuration,
        accessToken: accessToken, logger: context.logger)
    let server = DashboardServer(routes: routes, configuration: configuration, logger: context.logger, listening: listened)
    // Stopped in reverse order: the bus side closes the event streams, then the server stops, then the bus.
    return runtime.group([server, service] + extra)
}
