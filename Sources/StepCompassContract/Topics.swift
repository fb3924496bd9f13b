/// The topic names of the contract (the channels of `Docs/asyncapi.yaml`), under a configurable root.
///
/// One place builds every topic, so a `--topic-prefix` applies everywhere and no service spells a
/// topic by hand.
public struct Topics: Sendable, Hashable {
    /// The root, `stepcompass` by default.
    public let prefix: String

    public init(prefix: String = "stepcompass") {
        self.prefix = prefix
    }

    /// The per-device topic suffixes of the contract.
    public enum DeviceTopic: String, Sendable, CaseIterable {
        case steps, imu, location, permissions, heading, calibration, position, nearby
        /// The activity service's week summary (`stepcompass-activity`).
        case activity
        /// The journal's current walk (`stepcompass-journal`).
        case journal
        /// Each photo point of a walk (`stepcompass-journal`).
        case journalPhoto = "journal/photo"
        case simulationTruth = "simulation/truth"
        case bearingLock = "bearing-lock"
        case commandBearingLock = "cmd/bearing-lock"
        case commandCalibrate = "cmd/calibrate"
        case commandSettings = "cmd/settings"
        case commandResetPosition = "cmd/reset-position"
        case commandWalk = "cmd/walk"
        /// Forget a walker: `stepcompass forget DEVICE` (its Home Assistant device is removed).
        case commandForget = "cmd/forget"
    }

    /// The device topics the contract publishes retained: what `stepcompass devices` lists and `stepcompass forget`
    /// clears (an empty retained message), in the contract's order.
    public static let retainedDeviceTopics: [DeviceTopic] = [.permissions, .heading, .calibration, .bearingLock, .position, .activity, .journal]

    /// A device's topic, such as `stepcompass/phone-1/steps`.
    public func device(_ id: String, _ topic: DeviceTopic) -> String { "\(prefix)/\(id)/\(topic.rawValue)" }

    /// The filter matching one topic of every device, such as `stepcompass/+/steps`.
    public func allDevices(_ topic: DeviceTopic) -> TopicFilterText { "\(prefix)/+/\(topic.rawValue)" }

    /// A service's retained status topic.
    public func serviceStatus(_ service: String) -> String { "\(prefix)/services/\(service)/status" }
    /// A service's error topic.
    public func errors(_ service: String) -> String { "\(prefix)/errors/\(service)" }

    public var markersStatus: String { "\(prefix)/markers/status" }
    public var markersCollection: String { "\(prefix)/markers/collection" }
    public var markersRefresh: String { "\(prefix)/markers/cmd/refresh" }
    public var markersNearest: String { "\(prefix)/markers/nearest" }
    /// Where clients choose reply topics in a deployment with access control.
    public var replies: String { "\(prefix)/replies" }
    /// The activity service's history requests (request/response like ``markersNearest``).
    public var activityHistory: String { "\(prefix)/activity/history" }
    /// The journal's walk requests: a device's walks, one walk's route and photos, or its GPX (request/response).
    public var journalWalks: String { "\(prefix)/journal/walks" }

    /// Splits a device topic into its device id and suffix; nil for other topics.
    ///
    /// The device id is returned as received (it may be invalid); validate it with ``DeviceID``.
    ///
    /// It compares bytes, as a broker matches topics (every service calls it for every message it receives, the
    /// compass 50,000 times a second under load).
    public func parseDeviceTopic(_ topic: String) -> (device: String, topic: DeviceTopic)? {
        var topic = topic
        var prefix = prefix
        return prefix.withUTF8 { root in
            topic.withUTF8 { bytes -> (device: String, topic: DeviceTopic)? in
                let slash = UInt8(ascii: "/")
                let deviceStart = root.count + 1
                guard bytes.count > deviceStart, bytes[root.count] == slash,
                    UnsafeBufferPointer(rebasing: bytes[..<root.count]).elementsEqual(root),
                    let deviceEnd = bytes[deviceStart...].firstIndex(of: slash),
                    let suffix = DeviceTopic(utf8: UnsafeBufferPointer(rebasing: bytes[(deviceEnd + 1)...]))
                else { return nil }
                return (String(decoding: UnsafeBufferPointer(rebasing: bytes[deviceStart..<deviceEnd]), as: UTF8.self), suffix)
            }
        }
    }
}

extension Topics.DeviceTopic {
    /// The suffix spelled by `utf8`, or nil.
    init?(utf8: UnsafeBufferPointer<UInt8>) {
        for (spelling, topic) in Self.spellings where spelling.count == utf8.count && spelling.elementsEqual(utf8) {
            self = topic
            return
        }
        return nil
    }

    private static let spellings: [([UInt8], Topics.DeviceTopic)] = allCases.map { (Array($0.rawValue.utf8), $0) }
}

/// A topic filter as text (validated when subscribing).
public typealias TopicFilterText = String
