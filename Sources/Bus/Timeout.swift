/// Runs `operation`, cancelling it and returning nil when it takes longer than `timeout`: the one
/// race-against-a-sleep of the package (connection waits, request/response, conformance cases).
/// - Parameters:
///   - timeout: How long the operation may take.
///   - operation: The work; it is cancelled when the time runs out.
/// - Returns: The operation's result, or nil when the time ran out.
package func withTimeout<T: Sendable>(
    _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}
