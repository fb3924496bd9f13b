import Bus
import DashboardKit
import Logging
import ServiceRuntime

/// Feeds the hub from the bus: decodes each message into a ``DashboardInput`` and reports what it
/// cannot read on the dashboard's error topic (a bad message from one publisher never stops the page).
struct BusListener: Sendable {
    let subscription: BusSubscription
    let topics: DashboardTopics
    let hub: DashboardHub
    let context: BusServiceContext

    func run() async {
        for await message in subscription {
            let start = ContinuousClock.now
            defer { context.metrics.handled(message, since: start) }
            guard let (kind, device) = topics.classify(message.topic) else { continue }
            if !device.isEmpty, !DeviceID.isValid(device) {
                await context.errors.reject(message, reason: "invalid device id '\(device)'")
                continue
            }
            do {
                guard let input = try DashboardInput.decode(kind, device: device, payload: Array(message.payload)) else {
                    continue
                }
                await hub.apply(input)
            } catch {
                await context.errors.reject(message, reason: "\(error)")
            }
        }
    }
}
