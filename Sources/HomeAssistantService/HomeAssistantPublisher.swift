public import Bus
import Foundation
public import HomeAssistantKit
import Logging
public import ServiceLifecycle
public import ServiceRuntime

/// Publishes Home Assistant MQTT discovery for every walker the stack sees (the dashboard runs it with
/// `--home-assistant`): one retained device config each, published when the walker is first seen, again whenever
/// Home Assistant's `homeassistant/status` says `online`, and cleared (an empty retained message) when the walker is
/// forgotten (`stepcompass/{device}/cmd/forget`, `stepcompass forget DEVICE`) or has been idle for
/// ``idleTimeout``, so no ghost entities stay behind.
public actor HomeAssistantPublisher: Service {
    let discovery: HomeAssistantDiscovery
    let context: BusServiceContext
    /// How long a walker may send nothing before its config is cleared.
    let idleTimeout: Duration
    /// The walkers announced, and when each last sent something.
    private var lastSeen: [String: ContinuousClock.Instant] = [:]

    public init(discovery: HomeAssistantDiscovery, context: BusServiceContext, idleTimeout: Duration) {
        self.discovery = discovery
        self.context = context
        self.idleTimeout = idleTimeout
    }

    /// The walkers announced now.
    public var announced: Set<String> { Set(lastSeen.keys) }

    public func run() async throws {
        try await context.serve { try await self.serve() }
    }

    private func serve() async throws {
        let topics = context.topics
        let requests =
            try [Topics.DeviceTopic.position, .heading, .permissions, .activity, .bearingLock, .steps].map {
                SubscriptionRequest(try TopicFilter(topics.allDevices($0)), qos: .atLeastOnce)
            } + [
                SubscriptionRequest(try TopicFilter(topics.allDevices(.commandForget)), qos: .atLeastOnce),
                SubscriptionRequest(try TopicFilter(discovery.statusTopic), qos: .atLeastOnce),
            ]
        let subscription = try await context.bus.subscribe(to: requests)
        context.logger.info(
            "publishing Home Assistant discovery",
            metadata: [
                "homeAssistant.prefix": "\(discovery.discoveryPrefix)", "homeAssistant.idle": "\(idleTimeout)",
            ])
        let tick = min(idleTimeout / 4, .seconds(60))
        while !Task.isCancelled {
            switch await subscription.nextBatch(limit: 1_000, before: .now.advanced(by: tick)) {
            case .messages(let messages):
                for message in messages { await handle(message) }
            case .timeout:
                break
            case .ended:
                return
            }
            await clearIdle()
        }
    }

    private func handle(_ message: BusMessage) async {
        if message.topic == discovery.statusTopic {
            if message.text.trimmingCharacters(in: .whitespacesAndNewlines) == "online" {
                context.logger.info(
                    "Home Assistant is online; publishing the device configs again", metadata: ["homeAssistant.devices": "\(lastSeen.count)"])
                for device in lastSeen.keys.sorted() { await announce(device) }
            }
            return
        }
        // A device id is valid and not a reserved name (`errors`, `services`, ...): the services' own topics under
        // the same filters are not walkers.
        guard let (device, topic) = context.topics.parseDeviceTopic(message.topic), DeviceID.isValid(device) else { return }
        if topic == .commandForget {
            await forget(device, reason: "forgotten")
            return
        }
        guard !message.payload.isEmpty else { return }
        let isNew = lastSeen[device] == nil
        lastSeen[device] = .now
        if isNew { await announce(device) }
    }

    private func announce(_ device: String) async {
        do {
            try await context.bus.publish(
                BusMessage(
                    topic: discovery.configTopic(device: device), payload: discovery.config(device: device), qos: .atLeastOnce, retain: true))
        } catch {
            context.logger.warning("could not publish a Home Assistant config", metadata: ["device": "\(device)", "error": "\(error)"])
        }
    }

    private func forget(_ device: String, reason: String) async {
        lastSeen[device] = nil
        do {
            // An empty retained message removes the device and its entities from Home Assistant.
            try await context.bus.publish(BusMessage(topic: discovery.configTopic(device: device), payload: Data(), qos: .atLeastOnce, retain: true))
            context.logger.info("removed a walker from Home Assistant", metadata: ["device": "\(device)", "homeAssistant.reason": "\(reason)"])
        } catch {
            context.logger.warning("could not clear a Home Assistant config", metadata: ["device": "\(device)", "error": "\(error)"])
        }
    }

    private func clearIdle() async {
        let cutoff = ContinuousClock.now.advanced(by: .zero - idleTimeout)
        for (device, seen) in lastSeen where seen < cutoff {
            await forget(device, reason: "idle")
        }
    }
}
