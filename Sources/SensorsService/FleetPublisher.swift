import Bus
import Foundation
import Logging
import ServiceRuntime
import WalkerSimulation

/// Publishes every simulated walker of a fleet on its device's topics from one loop, paced by a clock.
///
/// Simulated time runs `speed` times faster than the clock: every `tick` of the clock each walker is advanced by
/// `tick × speed` seconds and the events of that stretch are published in order, each stamped with its simulated
/// moment (``WalkerSimulation/WalkerSimulator/date(at:)``), so timestamps stay consistent whatever the speed.
///
/// One loop for the whole fleet, not a task per walker: a thousand walkers then cost one timer wake-up a tick instead
/// of a thousand, and the loop runs on the bus's own thread where it has one (``Bus/MessageBus/taskExecutor``), so a
/// publish is written without a thread switch. Nothing in the loop waits but the publishes, and those suspend: the
/// walk is arithmetic, and a large fleet logs one line for all its walkers.
struct FleetPublisher<C: Clock>: Sendable where C.Duration == Duration {
    /// The devices and their walks, in order.
    let walkers: [(device: String, walk: WalkerConfiguration)]
    let fieldSource: any GeomagneticFieldSource
    let speed: Double
    let duration: Double?
    let progressInterval: Double
    let tick: Duration
    let clock: C
    let context: BusServiceContext

    /// A fleet up to this size logs each walker's progress and stop; a larger one logs one line for the whole fleet.
    static var walkerLinesLimit: Int { 10 }

    /// One walker's simulation and what it has published.
    private struct Walker {
        let device: String
        var simulator: WalkerSimulator
        var published = 0
    }

    /// Runs until `duration` simulated seconds have been published, or until the task is cancelled.
    func run() async throws {
        try await withTaskExecutorPreference(context.bus.taskExecutor) { try await walk() }
    }

    private func walk() async throws {
        var fleet = try walkers.map { Walker(device: $0.device, simulator: try WalkerSimulator(configuration: $0.walk, fieldSource: fieldSource)) }
        let topics = context.topics
        for walker in fleet {
            try await context.publishRestated(try SensorPayloads.permissions(device: walker.device, topics: topics))
        }
        let tickSeconds = tick.inSeconds
        let start = clock.now
        var simulated = 0.0
        var nextProgress = progressInterval
        while !Task.isCancelled {
            for index in fleet.indices {
                for event in fleet[index].simulator.advance(to: simulated) {
                    let walker = fleet[index]
                    try await context.bus.publish(
                        try SensorPayloads.message(
                            for: event, device: walker.device, date: walker.simulator.date(at: event.t), topics: topics))
                    fleet[index].published += 1
                }
            }
            if simulated >= nextProgress {
                nextProgress += progressInterval
                logProgress(of: fleet, at: simulated)
            }
            if let duration, simulated >= duration { break }
            var next = simulated + tickSeconds * speed
            if let duration { next = min(next, duration) }
            do {
                try await clock.sleep(until: start.advanced(by: .seconds(next / speed)), tolerance: nil)
            } catch {
                break  // Cancelled: shutdown.
            }
            simulated = next
        }
        log(fleet, at: simulated, each: "walker stopped", all: "fleet stopped")
    }

    private func logProgress(of fleet: [Walker], at simulated: Double) {
        log(fleet, at: simulated, each: "walking", all: "walking")
    }

    /// One line per walker (`each`) for a small fleet, one line for the whole fleet (`all`) for a large one.
    private func log(_ fleet: [Walker], at simulated: Double, each: Logger.Message, all: Logger.Message) {
        guard fleet.count > Self.walkerLinesLimit else {
            for walker in fleet { context.logger.info(each, metadata: metadata(of: walker, at: simulated)) }
            return
        }
        context.logger.info(
            all,
            metadata: [
                "sensors.devices": "\(fleet.count)", "sensors.t": "\(simulated)",
                "sensors.steps": "\(fleet.reduce(0) { $0 + $1.simulator.steps })",
                "sensors.messages": "\(fleet.reduce(0) { $0 + $1.published })",
            ])
    }

    private func metadata(of walker: Walker, at simulated: Double) -> Logger.Metadata {
        [
            "device": "\(walker.device)", "sensors.t": "\(simulated)", "sensors.steps": "\(walker.simulator.steps)",
            "sensors.distance": "\(walker.simulator.distanceWalked)", "sensors.messages": "\(walker.published)",
        ]
    }
}
