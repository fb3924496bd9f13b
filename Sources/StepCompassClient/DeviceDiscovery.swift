public import Bus
public import Foundation
public import ServiceRuntime

/// Finds the devices that have published, from the retained messages the services keep for each one.
///
/// A command without `--device` goes to the only device there is. The broker replays the retained
/// `+/heading`, `+/position`, `+/permissions` and `+/calibration` messages on subscribe; to know when
/// that replay is over without sleeping a fixed time, the client then publishes a *sync marker* to its
/// own topic under `replies/` (where a client may publish in a deployment with access control). A broker
/// handles one client's packets in order, so once the marker comes back every retained message is in.
/// ``window`` bounds the wait should the marker be lost.
public struct DeviceDiscovery: Sendable {
    /// The retained per-device topics that show a device exists.
    public static let evidence: [Topics.DeviceTopic] = [.heading, .position, .permissions, .calibration]
    /// Every retained per-device topic of the contract (`Docs/asyncapi.yaml`): what `stepcompass devices` lists
    /// and `stepcompass forget` clears.
    public static let retained = Topics.retainedDeviceTopics

    public let bus: any MessageBus
    public let topics: Topics
    /// The longest wait for the retained messages.
    public var window: Duration

    /// Creates a discovery over a connected bus.
    /// - Parameters:
    ///   - bus: A connected bus.
    ///   - topics: The contract's topics (with the configured prefix).
    ///   - window: The longest wait for the retained messages (normally over in milliseconds).
    public init(bus: any MessageBus, topics: Topics, window: Duration = .seconds(1)) {
        self.bus = bus
        self.topics = topics
        self.window = window
    }

    /// The devices with a retained message, in the order the broker replayed them; invalid ids and
    /// cleared (empty) messages are ignored.
    public func devices() async throws -> [String] {
        try await inventory(of: Self.evidence).map(\.id)
    }

    /// The devices with a retained message on any of `deviceTopics`, in the order the broker replayed them, with
    /// the topics each has and the latest `timestamp` among them; invalid ids and cleared (empty) messages are
    /// ignored.
    /// - Parameters:
    ///   - deviceTopics: The per-device topics to read (default: every retained one of the contract).
    ///   - device: Only this device (its topics are subscribed to by name, not with a wildcard).
    public func inventory(of deviceTopics: [Topics.DeviceTopic] = Self.retained, device: String? = nil) async throws -> [DiscoveredDevice] {
        let filters = deviceTopics.map { topic in device.map { topics.device($0, topic) } ?? topics.allDevices(topic) }
        let messages = try await RetainedSnapshot.read(bus: bus, topics: topics, filters: filters, window: window)
        var found: [DiscoveredDevice] = []
        for message in messages where !message.payload.isEmpty {
            guard let (id, topic) = topics.parseDeviceTopic(message.topic), deviceTopics.contains(topic), DeviceID.isValid(id),
                device == nil || id == device
            else { continue }
            let timestamp = Self.timestamp(in: message.payload)
            if let index = found.firstIndex(where: { $0.id == id }) {
                found[index].add(topic, timestamp: timestamp)
            } else {
                var entry = DiscoveredDevice(id: id, topics: [], lastSeen: nil)
                entry.add(topic, timestamp: timestamp)
                found.append(entry)
            }
        }
        return found
    }

    /// The payload's top-level `timestamp`, when it is a JSON object with one the contract's codec reads.
    static func timestamp(in payload: Data) -> Date? {
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
            let text = object["timestamp"] as? String
        else { return nil }
        return Timestamp.parse(text)
    }

    /// The device a command goes to: the one asked for (checked against the contract's id rules), else
    /// the only device that has published.
    /// - Parameter requested: The `--device` value, if any.
    /// - Throws: ``StepCompassClientError`` when the id is invalid, no device has published, or several
    ///   have (listing them).
    public func resolve(_ requested: String?) async throws -> String {
        if let requested {
            do { try DeviceID.validate(requested) } catch {
                throw StepCompassClientError.invalidInput("--device: \(error.message)")
            }
            return requested
        }
        let found = try await devices()
        switch found.count {
        case 0:
            throw StepCompassClientError(
                .noDevice,
                "no device has published yet (no retained heading, position, permissions or calibration under '\(topics.prefix)/'): start the walker (make run) or a phone, or name one with --device ID"
            )
        case 1:
            return found[0]
        default:
            throw StepCompassClientError(
                .severalDevices,
                "\(found.count) devices have published: \(found.sorted().joined(separator: ", ")). Choose one with --device ID")
        }
    }
}

/// A device found from its retained messages.
public struct DiscoveredDevice: Sendable, Hashable {
    /// The device id.
    public let id: String
    /// The retained topics it has, in the order of ``DeviceDiscovery/retained`` (other topics after them).
    public private(set) var topics: [Topics.DeviceTopic]
    /// The latest `timestamp` among its retained messages; nil when none has one.
    public private(set) var lastSeen: Date?

    public init(id: String, topics: [Topics.DeviceTopic], lastSeen: Date?) {
        self.id = id
        self.topics = topics
        self.lastSeen = lastSeen
    }

    mutating func add(_ topic: Topics.DeviceTopic, timestamp: Date?) {
        if !topics.contains(topic) {
            topics.append(topic)
            let order = DeviceDiscovery.retained + Topics.DeviceTopic.allCases
            topics.sort { (order.firstIndex(of: $0) ?? 0) < (order.firstIndex(of: $1) ?? 0) }
        }
        if let timestamp, lastSeen.map({ timestamp > $0 }) ?? true { lastSeen = timestamp }
    }
}
