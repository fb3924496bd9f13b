extension ServiceContext {
    /// Suspends until the service is asked to stop (its task is cancelled).
    public func waitForShutdown() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}
