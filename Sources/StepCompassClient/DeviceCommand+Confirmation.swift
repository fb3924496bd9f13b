import DashboardKit
import ServiceRuntime

extension DeviceCommand {
    /// How a command's effect shows on the bus: the retained topic the service updates, when an update
    /// there confirms the command, and the words that describe the new state (the view model's, as the
    /// dashboard shows them).
    struct Confirmation {
        let topic: Topics.DeviceTopic
        let kind: DashboardInput.Kind
        /// The service expected to answer (for the "is it running?" hint).
        let service: String
        let accepts: @Sendable (DashboardInput) -> Bool
        let describe: @Sendable (DeviceView) -> String
    }

    /// The confirmation of this command, nil when it has no effect to wait for.
    var confirmation: Confirmation? {
        switch self {
        case .lock(let bearing, let threshold):
            return Confirmation(topic: .bearingLock, kind: .bearingLock, service: "compass", accepts: { input in
                guard case .bearingLock(_, let report) = input, report.locked else { return false }
                if let bearing, let locked = report.bearing, abs(locked - bearing) > 0.01 { return false }
                if let threshold, let limit = report.threshold, abs(limit - threshold) > 0.01 { return false }
                return true
            }, describe: { $0.bearingLock.text })
        case .unlock:
            return Confirmation(topic: .bearingLock, kind: .bearingLock, service: "compass", accepts: { input in
                guard case .bearingLock(_, let report) = input else { return false }
                return !report.locked
            }, describe: { $0.bearingLock.text })
        case .calibrate:
            return Confirmation(topic: .calibration, kind: .calibration, service: "compass", accepts: { input in
                if case .calibration = input { return true }
                return false
            }, describe: { view in [view.calibration.text, view.calibration.prompt].compactMap { $0 }.joined(separator: ". ") })
        case .north(let north):
            return Confirmation(topic: .heading, kind: .heading, service: "compass", accepts: { input in
                guard case .heading(_, let report) = input else { return false }
                return report.north == north.rawValue
            }, describe: { $0.northText })
        case .resetPosition:
            return Confirmation(topic: .position, kind: .position, service: "position", accepts: { input in
                guard case .position(_, let report) = input else { return false }
                return (report.updates ?? 0) == 0 && (report.steps ?? 0) == 0
            }, describe: { $0.positionText })
        case .walk:
            return nil  // the journal's retained walk confirms it; the client's `walk` command reads it
        }
    }
}
