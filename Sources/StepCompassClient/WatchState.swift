public import Bus
public import DashboardKit
public import ServiceRuntime

/// What `stepcompass watch` knows: the dashboard's view model fed with bus messages, and which device
/// is on screen.
public struct WatchState: Sendable {
    /// What a message changed, for the one-line-per-change output.
    public enum Change: Sendable, Hashable {
        /// The device on screen changed.
        case device(String)
        case markers
        case services
        /// A message could not be read (the reason is in ``lastProblem``).
        case unreadable
    }

    public let filters: WatchFilters
    public private(set) var model = DashboardModel(pathLimit: 2, maxDevices: 1_000)
    /// Messages that could not be decoded, and the last reason.
    public private(set) var unreadableCount = 0
    public private(set) var lastProblem: String?

    /// Creates an empty state.
    /// - Parameters:
    ///   - topics: The contract's topics.
    ///   - device: The device to show; nil shows the first device seen.
    public init(topics: Topics, device: String?) {
        filters = WatchFilters(topics: topics, device: device)
    }

    /// The device on screen: the one asked for, else the first seen.
    public var deviceID: String? { filters.device ?? model.defaultDeviceID }

    /// The view of the device on screen, nil until it has published.
    public var deviceView: DeviceView? { deviceID.flatMap { model.device($0)?.view } }

    /// Applies a message.
    /// - Returns: What changed on screen, nil when nothing did (another device, a cleared message, a
    ///   topic the view does not show).
    public mutating func apply(_ message: BusMessage) -> Change? {
        guard let (kind, device) = filters.kind(of: message.topic) else { return nil }
        let input: DashboardInput?
        do {
            input = try DashboardInput.decode(kind, device: device, payload: [UInt8](message.payload))
        } catch {
            unreadableCount += 1
            lastProblem = "\(message.topic): \(error)"
            return .unreadable
        }
        guard let input else { return nil }
        switch model.apply(input) {
        case .device(let id, _, _): return id == deviceID ? .device(id) : nil
        case .markers: return .markers
        case .services: return .services
        case .none: return nil
        }
    }
}
