public import MarkerKit
public import StepCompassContract

/// The dashboard's state: every device, the markers and the services, built from bus messages.
///
/// A value type with one entry point, ``apply(_:)``, which says what changed so a caller (the web
/// dashboard's hub, the terminal client) redraws only that. It does no I/O and no timing: tests feed it
/// messages and read its views.
public struct DashboardModel: Sendable {
    /// What an input changed.
    public enum Change: Sendable, Hashable {
        /// A device's view changed; `isNew` when it is the first message of that device, `pathChanged`
        /// for a position (the walked path may have grown or been reset).
        case device(String, isNew: Bool, pathChanged: Bool)
        case markers
        case services
        /// Nothing visible changed (a new device beyond ``maxDevices``).
        case none
    }

    /// The most positions kept per device for the walked path.
    public let pathLimit: Int
    /// The most devices tracked; later ones are ignored, so a flood of device ids cannot exhaust memory.
    public let maxDevices: Int

    /// Device ids in the order they were first seen (the picker's order; the first is the default).
    public private(set) var deviceIDs: [String] = []
    private var devices: [String: DeviceState] = [:]
    public private(set) var markersStatus: MarkersStatusMessage?
    public private(set) var markers: [Marker] = []
    public private(set) var services: [String: ServiceStatusReport] = [:]

    public init(pathLimit: Int = 2_000, maxDevices: Int = 10_000) {
        self.pathLimit = max(2, pathLimit)
        self.maxDevices = max(1, maxDevices)
    }

    /// Applies one input.
    @discardableResult
    public mutating func apply(_ input: DashboardInput) -> Change {
        switch input {
        case .steps(let id, let report): return update(id) { $0.steps = report }
        case .heading(let id, let report):
            return update(id) { state in
                state.heading = report
                if report.status == "ok", let heading = report.heading { state.rose.turn(to: heading) }
            }
        case .position(let id, let report):
            return update(id, path: true) { [pathLimit] in $0.record(report, pathLimit: pathLimit) }
        case .calibration(let id, let report): return update(id) { $0.calibration = report }
        case .bearingLock(let id, let report): return update(id) { $0.bearingLock = report }
        case .location(let id, let report): return update(id) { $0.location = report }
        case .permissions(let id, let report): return update(id) { $0.permissions = report }
        case .activity(let id, let report): return update(id) { $0.activity = report }
        case .journal(let id, let report): return update(id) { $0.record(report) }
        case .journalPhoto(let id, let report): return update(id) { $0.record(report) }
        case .markersStatus(let report):
            markersStatus = report
            return .markers
        case .markersCollection(let list):
            markers = list
            return .markers
        case .serviceStatus(let service, let report):
            services[service] = report
            return .services
        }
    }

    /// A device's state, nil if it was never seen.
    public func device(_ id: String) -> DeviceState? { devices[id] }

    /// The device the page shows when none is chosen: the first seen.
    public var defaultDeviceID: String? { deviceIDs.first }

    /// The markers' view (status and pins).
    public var markersView: MarkersView { MarkersView(status: markersStatus, markers: markers) }

    /// Every service that has reported, by name.
    public var servicesView: [ServiceView] {
        services.keys.sorted().compactMap { name in services[name].map { ServiceView(service: name, report: $0) } }
    }

    private mutating func update(_ id: String, path: Bool = false, _ change: (inout DeviceState) -> Void) -> Change {
        var isNew = false
        if devices[id] == nil {
            guard devices.count < maxDevices else { return .none }
            devices[id] = DeviceState(id: id)
            deviceIDs.append(id)
            isNew = true
        }
        change(&devices[id]!)
        return .device(id, isNew: isNew, pathChanged: path)
    }
}
