public import Bus
public import DashboardKit
public import ServiceRuntime

/// The topics `stepcompass watch` reads, and which view-model input each one is.
public struct WatchFilters: Sendable {
    /// The per-device topics the view shows.
    public static let deviceTopics: [Topics.DeviceTopic] = [
        .heading, .steps, .position, .calibration, .bearingLock, .location, .permissions,
    ]

    public let topics: Topics
    /// One device, or every device (`+`).
    public let device: String?

    public init(topics: Topics, device: String?) {
        self.topics = topics
        self.device = device
    }

    /// The subscription: the device topics (of one device or all), the markers status and every
    /// service's status.
    public var requests: [SubscriptionRequest] {
        get throws {
            var filters = Self.deviceTopics.map { topic in
                device.map { topics.device($0, topic) } ?? topics.allDevices(topic)
            }
            filters += [topics.markersStatus, topics.serviceStatus("+")]
            return try filters.map { SubscriptionRequest(try TopicFilter($0), qos: .atLeastOnce) }
        }
    }

    /// The view-model input kind of a topic and its device (empty for non-device topics); nil for a
    /// topic the view does not read or a device id the contract forbids (such as `errors`, which
    /// `+/position` also matches).
    public func kind(of topic: String) -> (kind: DashboardInput.Kind, device: String)? {
        if topic == topics.markersStatus { return (.markersStatus, "") }
        let servicesRoot = "\(topics.prefix)/services/"
        if topic.hasPrefix(servicesRoot), topic.hasSuffix("/status") {
            let name = topic.dropFirst(servicesRoot.count).dropLast("/status".count)
            guard !name.isEmpty, !name.contains("/") else { return nil }
            return (.serviceStatus(String(name)), "")
        }
        guard let (id, suffix) = topics.parseDeviceTopic(topic), DeviceID.isValid(id) else { return nil }
        if let device, id != device { return nil }
        let kind: DashboardInput.Kind
        switch suffix {
        case .heading: kind = .heading
        case .steps: kind = .steps
        case .position: kind = .position
        case .calibration: kind = .calibration
        case .bearingLock: kind = .bearingLock
        case .location: kind = .location
        case .permissions: kind = .permissions
        default: return nil
        }
        return (kind, id)
    }
}
