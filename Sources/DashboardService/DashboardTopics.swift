import Bus
import DashboardKit
import ServiceRuntime

/// Which topics the dashboard reads, and what each received topic is.
struct DashboardTopics: Sendable {
    let topics: Topics

    /// The per-device topics shown (not `imu`: 50 messages a second per device that the page never shows).
    private static let deviceTopics: [Topics.DeviceTopic: DashboardInput.Kind] = [
        .steps: .steps, .heading: .heading, .position: .position, .calibration: .calibration,
        .bearingLock: .bearingLock, .location: .location, .permissions: .permissions, .activity: .activity,
        .journal: .journal, .journalPhoto: .journalPhoto,
    ]

    /// The subscription's filters, all at QoS 1 (each message arrives at the QoS it was published with).
    var subscriptions: [SubscriptionRequest] {
        get throws {
            var filters = Self.deviceTopics.keys.map { topics.allDevices($0) }.sorted()
            filters += [topics.markersStatus, topics.markersCollection, topics.serviceStatus("+")]
            return try filters.map { SubscriptionRequest(try TopicFilter($0), qos: .atLeastOnce) }
        }
    }

    /// A received topic's kind and device (empty for topics that are not per device); nil for a topic
    /// the dashboard does not read.
    func classify(_ topic: String) -> (kind: DashboardInput.Kind, device: String)? {
        if topic == topics.markersStatus { return (.markersStatus, "") }
        if topic == topics.markersCollection { return (.markersCollection, "") }
        let servicePrefix = topics.prefix + "/services/"
        if topic.hasPrefix(servicePrefix), topic.hasSuffix("/status") {
            let name = topic.dropFirst(servicePrefix.count).dropLast("/status".count)
            guard !name.isEmpty, !name.contains("/") else { return nil }
            return (.serviceStatus(String(name)), "")
        }
        guard let (device, suffix) = topics.parseDeviceTopic(topic), let kind = Self.deviceTopics[suffix] else {
            return nil
        }
        // The services' own topics under a reserved name (`stepcompass/errors/position`, `errors/activity`, ...) match
        // the `+/...` filters too: not devices, and not bad input either.
        if DeviceID.reserved.contains(device) { return nil }
        return (kind, device)
    }
}
