import Bus
import Foundation
import Logging
import ServiceRuntime
import WalkerSimulation

/// Publishes one simulated walker on its device's topics, paced by a clock.
///
/// Simulated time runs `speed` times faster than the clock: every `tick` of the clock the walker is advanced by
/// `tick × speed` seconds and the events of that stretch are published in order, each stamped with its simulated
/// moment (``WalkerSimulation/WalkerSimulator/date(at:)``), so timestamps stay consistent whatever the speed.
struct WalkerPublisher<C: Clock>: Sendable where C.Duration == Duration {
    let device: String
    let walker: WalkerConfiguration
    let fieldSource: any GeomagneticFieldSource
    let speed: Double
    let duration: Double?
    let progressInterval: Double
    let tick: Duration
    let clock: C
    let context: BusServiceContext

    /// Runs until `duration` simulated seconds have been published, or until the task is cancelled.
    func run() async throws {
        var simulator = try WalkerSimulator(configuration: walker, fieldSource: fieldSource)
        let topics = context.topics
        try await context.publishRestated(try SensorPayloads.permissions(device: device, topics: topics))
        let tickSeconds = tick.inSeconds
        let start = clock.now
        var simulated = 0.0
        var nextProgress = progressInterval
        var published = 0
        while !Task.isCancelled {
            for event in simulator.advance(to: simulated) {
                try await context.bus.publish(
                    try SensorPayloads.message(for: event, device: device, date: simulator.date(at: event.t), topics: topics))
                published += 1
            }
            if simulated >= nextProgress {
                nextProgress += progressInterval
                context.logger.info(
                    "walking",
                    metadata: [
                        "device": "\(device)", "sensors.t": "\(simulated)", "sensors.steps": "\(simulator.steps)",
                        "sensors.distance": "\(simulator.distanceWalked)", "sensors.messages": "\(published)",
                    ])
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
        context.logger.info(
            "walker stopped",
            metadata: [
                "device": "\(device)", "sensors.t": "\(simulated)", "sensors.steps": "\(simulator.steps)",
                "sensors.distance": "\(simulator.distanceWalked)", "sensors.messages": "\(published)",
            ])
    }
}
