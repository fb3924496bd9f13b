package import ServiceLifecycle

/// Runs a service group (a `buildX(config:logger:bus:)`) for the duration of `body`, then shuts it down
/// gracefully and waits for it, whether `body` returns or throws. An error of the group itself is thrown after
/// a successful body.
/// - Parameters:
///   - group: The group to run.
///   - body: The test's work while the group runs.
package func withRunningGroup<T: Sendable>(_ group: ServiceGroup, _ body: () async throws -> T) async throws -> T {
    let running = Task { try await group.run() }
    let result: T
    do {
        result = try await body()
    } catch {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        throw error
    }
    await group.triggerGracefulShutdown()
    try await running.value
    return result
}
