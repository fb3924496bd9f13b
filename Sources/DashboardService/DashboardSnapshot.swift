public import DashboardKit

/// The whole state for one browser: `GET /api/state` answers with it, and its parts are the events.
public struct DashboardSnapshot: Sendable, Hashable, Codable {
    public var devices: [String]
    /// The device shown: the one asked for, else the first seen.
    public var selected: String?
    public var device: DeviceView?
    public var path: [PathPoint]
    /// The device's Journal panel (nil without a device).
    public var journal: JournalView?
    public var markers: MarkersView
    public var services: [ServiceView]
}

/// The `devices` event: the picker's list and the device the stream follows.
struct DeviceListEvent: Sendable, Hashable, Codable {
    var devices: [String]
    var selected: String?
}

/// The `path` event: the followed device's walked path.
struct PathEvent: Sendable, Hashable, Codable {
    var device: String
    var points: [PathPoint]
}

/// The `journal` event: the followed device's Journal panel (sent when a `journal` or `journal/photo` message
/// arrives, not with every heading).
struct JournalEvent: Sendable, Hashable, Codable {
    var device: String
    var journal: JournalView
}
