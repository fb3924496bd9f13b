import AsyncAlgorithms
public import Bus
import CompassKit
public import GeoMagnetism
import Logging
public import ServiceLifecycle
public import ServiceRuntime

/// The compass and calibration service (`stepcompass-compass`): IMU samples in, tilt-compensated
/// true-north headings, calibration and bearing-lock state out, per the bus contract.
///
/// One subscription receives every input filter together (`imu`, `location`, `permissions`,
/// the three commands, and `calibration`, whose retained messages restore calibrations after a
/// restart), so each device's messages are handled in arrival order by one actor. Before it, a
/// short-lived subscription reads the retained `bearing-lock` and `heading` messages of an
/// earlier run, to restore bearing locks and north settings (see ``restoreRetainedState(into:)``). A timer task
/// publishes held headings when their rate window ends and marks silent devices stale.
public struct CompassService: Service {
    let configuration: CompassConfiguration
    let context: BusServiceContext
    private let model: WorldMagneticModel

    /// Creates the service.
    /// - Parameters:
    ///   - configuration: The tuning (validated here).
    ///   - context: The bus, topics, logger and error reporter.
    ///   - model: The magnetic model; the bundled WMM2025 when nil.
    /// - Throws: ``CompassServiceError`` for a bad configuration or a missing model.
    public init(
        configuration: CompassConfiguration, context: BusServiceContext, model: WorldMagneticModel? = nil
    ) throws(CompassServiceError) {
        try configuration.validate()
        self.configuration = configuration
        self.context = context
        if let model {
            self.model = model
        } else {
            do {
                self.model = try WorldMagneticModel.wmm2025()
            } catch {
                throw .magneticModelUnavailable("\(error)")
            }
        }
    }

    /// The filters of the one subscription.
    public var subscriptionRequests: [SubscriptionRequest] {
        get throws {
            let topics = context.topics
            let inputs: [(Topics.DeviceTopic, QoS)] = [
                (.imu, .atMostOnce), (.location, .atLeastOnce), (.permissions, .atLeastOnce),
                (.commandBearingLock, .atLeastOnce), (.commandCalibrate, .atLeastOnce),
                (.commandSettings, .atLeastOnce), (.calibration, .atLeastOnce), (.commandForget, .atLeastOnce),
            ]
            return try inputs.map { topic, qos in
                SubscriptionRequest(try TopicFilter(topics.allDevices(topic)), qos: qos)
            }
        }
    }

    /// Waits for the bus, restores the retained state, subscribes, says ready and handles samples until the
    /// group shuts down or the bus closes.
    ///
    /// It runs on the bus's own thread where the bus has one (``MessageBus/taskExecutor``): samples are handled and
    /// headings written without a thread switch (at 1,000 devices × 50 Hz, 67-73 % of a core instead of 73-77 %). Nothing
    /// here blocks: every device's state is in memory.
    public func run() async throws {
        try await withTaskExecutorPreference(context.bus.taskExecutor) {
            try await context.serve { try await self.serve() }
        }
    }

    private func serve() async throws {
        let engine = CompassEngine(configuration: configuration, model: model, context: context)
        try await restoreRetainedState(into: engine)
        let subscription = try await context.bus.subscribe(to: try subscriptionRequests)
        context.logger.info(
            "compass ready",
            metadata: [
                "compass.smoothing": "\(configuration.smoothing)", "compass.maxRate": "\(configuration.maxRate)",
                "compass.deadBand": "\(configuration.deadBand)", "compass.staleAfter": "\(configuration.staleAfter)",
            ])
        try await context.ready()
        let tick = Self.tickInterval(for: configuration)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // A batch per actor hop: at 50,000 samples a second a hop per message is a measurable
                // share of the service's time. An empty batch means the subscription ended.
                while true {
                    let batch = await subscription.nextBatch()
                    if batch.isEmpty { break }
                    await engine.handle(batch)
                }
            }
            // On the bus's thread too, like the samples: the engine is one actor, and a tick scheduled on Swift's
            // shared threads would hold the samples behind those threads when they are busy (a test run's load kept
            // the walker's headings seconds late). A tick visits every device; the socket waits for it, as the
            // samples would wait for the actor anyway.
            group.addTask {
                // On the context's clock: a test advances it to end rate windows and mark devices stale.
                for await _ in AsyncTimerSequence(interval: .seconds(tick), clock: context.clock) {
                    await engine.tick()
                }
            }
            // Either task ending (bus closed or cancellation) ends the service.
            await group.next()
            group.cancelAll()
        }
        try? await context.bus.unsubscribe(subscription)
    }

    /// How often the timer runs: a quarter of the rate window or of the stale time, between 5 and
    /// 50 ms, so a held heading goes out at most a few milliseconds after its window ends.
    static func tickInterval(for configuration: CompassConfiguration) -> Double {
        max(0.005, min(0.05, configuration.publishInterval / 4, configuration.staleAfter / 4))
    }
}
