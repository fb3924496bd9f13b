public import Bus
import Logging
import ServiceRuntime

extension CompassService {
    /// The filters of the start-up restore: every device's retained bearing lock and heading.
    public var restoreRequests: [SubscriptionRequest] {
        get throws {
            let topics = context.topics
            return [
                SubscriptionRequest(try TopicFilter(topics.allDevices(.bearingLock)), qos: .atLeastOnce),
                SubscriptionRequest(try TopicFilter(topics.allDevices(.heading)), qos: .atMostOnce),
            ]
        }
    }

    /// Restores the bearing locks and north settings an earlier run left in its retained messages.
    ///
    /// It subscribes to `+/bearing-lock` and `+/heading`, applies the retained messages the broker sends at once,
    /// and unsubscribes when none has come for ``CompassConfiguration/restoreQuietPeriod`` (at most 2 s, or ten
    /// quiet periods, in all). It does not stay subscribed: the service publishes headings at up to
    /// `--max-rate` per device, and receiving its own headings back would cost as much as the samples.
    func restoreRetainedState(into engine: CompassEngine) async throws {
        let subscription = try await context.bus.subscribe(to: try restoreRequests)
        await engine.beginRestore()
        let quiet = Duration.seconds(configuration.restoreQuietPeriod)
        // Real time, not the service's clock: the quiet period waits for the broker's retained messages.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: max(.seconds(2), quiet * 10))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in subscription {
                    await engine.restore(message)
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    let due = min(deadline, (await engine.lastRestoreActivity ?? clock.now).advanced(by: quiet))
                    if clock.now >= due { return }
                    do { try await clock.sleep(until: due) } catch { return }
                }
            }
            await group.next()
            group.cancelAll()
        }
        try? await context.bus.unsubscribe(subscription)
        let restored = await engine.restored
        if restored.locks > 0 || restored.settings > 0 {
            context.logger.info(
                "restored bearing locks and north settings",
                metadata: [
                    "compass.restoredLocks": "\(restored.locks)", "compass.restoredSettings": "\(restored.settings)",
                ])
        }
    }
}
