import DashboardKit
import Foundation
import ServiceRuntime

extension DeviceCommand {
    /// How a command's effect shows on the bus: the retained topic the service updates, and how to read its
    /// messages for one command.
    struct Confirmation {
        let topic: Topics.DeviceTopic
        /// The service expected to answer (for the "is it running?" hint).
        let service: String
        /// A fresh reader of the topic's messages for one command to a device.
        let reader: @Sendable (_ device: String) -> EffectReader
    }

    /// The confirmation of this command, nil when it has no effect to wait for.
    var confirmation: Confirmation? {
        switch self {
        case .lock(let bearing, let threshold):
            return .dashboard(
                topic: .bearingLock, kind: .bearingLock, service: "compass",
                accepts: { input in
                    guard case .bearingLock(_, let report) = input, report.locked else { return false }
                    if let bearing, let locked = report.bearing, abs(locked - bearing) > 0.01 { return false }
                    if let threshold, let limit = report.threshold, abs(limit - threshold) > 0.01 { return false }
                    return true
                }, describe: { $0.bearingLock.text })
        case .unlock:
            return .dashboard(
                topic: .bearingLock, kind: .bearingLock, service: "compass",
                accepts: { input in
                    guard case .bearingLock(_, let report) = input else { return false }
                    return !report.locked
                }, describe: { $0.bearingLock.text })
        case .calibrate:
            return .dashboard(
                topic: .calibration, kind: .calibration, service: "compass",
                accepts: { input in
                    if case .calibration = input { return true }
                    return false
                }, describe: { view in [view.calibration.text, view.calibration.prompt].compactMap { $0 }.joined(separator: ". ") })
        case .north(let north):
            return .dashboard(
                topic: .heading, kind: .heading, service: "compass",
                accepts: { input in
                    guard case .heading(_, let report) = input else { return false }
                    return report.north == north.rawValue
                }, describe: { $0.northText })
        case .resetPosition:
            return .dashboard(
                topic: .position, kind: .position, service: "position",
                accepts: { input in
                    guard case .position(_, let report) = input else { return false }
                    return (report.updates ?? 0) == 0 && (report.steps ?? 0) == 0
                }, describe: { $0.positionText })
        case .walk(let start, _):
            return Confirmation(topic: .journal, service: "journal") { _ in .journal(start: start) }
        }
    }
}

extension DeviceCommand.Confirmation {
    /// A confirmation read through the dashboard's view model: a live message whose input `accepts` confirms, in the
    /// words `describe` takes from the device's view.
    static func dashboard(
        topic: Topics.DeviceTopic, kind: DashboardInput.Kind, service: String,
        accepts: @escaping @Sendable (DashboardInput) -> Bool, describe: @escaping @Sendable (DeviceView) -> String
    ) -> Self {
        Self(topic: topic, service: service) { device in
            var model = DashboardModel(pathLimit: 2, maxDevices: 1)
            return EffectReader { payload, live in
                guard let input = try? DashboardInput.decode(kind, device: device, payload: [UInt8](payload)) else { return nil }
                model.apply(input)
                guard let view = model.device(device)?.view else { return nil }
                return (describe(view), live && accepts(input) ? .effect : .other)
            }
        }
    }
}

/// Reads the messages of a command's effect topic in the order they come: the replayed retained message first (the
/// state before the command), then the live ones.
struct EffectReader {
    /// What a message shows of the command.
    enum Evidence {
        /// Its effect: only a live message can show it (a replayed one is the state before the command).
        case effect
        /// That the state before the command was already the one asked for: the service will change nothing.
        case unchanged
        /// Another state.
        case other
    }

    /// Reads a message: the state in words and what it shows; nil when it says nothing (unreadable, cleared).
    /// - Parameters:
    ///   - payload: The message's bytes.
    ///   - live: False for a replayed retained message.
    let read: (_ payload: Data, _ live: Bool) -> (text: String, evidence: Evidence)?

    /// The journal's retained `{device}/journal`: a start is confirmed by a walk that started after the walk on
    /// before (if any; a live update of that walk never confirms), a stop by no walk. A start while a walk is on, or a
    /// stop while none is, changes nothing (the journal publishes nothing then).
    static func journal(start: Bool) -> EffectReader {
        /// When the walk on before the command started; nil when none was on.
        var before: Date?
        return EffectReader { payload, live in
            guard !payload.isEmpty, let state = try? JournalMessage(payload: payload) else { return nil }
            guard live else {
                before = state.walk.flatMap { $0.startedDate ?? .distantFuture }
                switch (start, state.walk) {
                case (true, _?):
                    return ("\(state.text) (it was on before: stop it first with `stepcompass walk stop`)", .unchanged)
                case (false, nil):
                    return ("no walk was on", .unchanged)
                default:
                    return (state.text, .other)
                }
            }
            guard start else { return (state.text, state.walk == nil ? .effect : .other) }
            guard let started = state.walk?.startedDate else { return (state.text, .other) }
            if let before, started <= before { return (state.text, .other) }  // the walk that was on, updated
            return (state.text, .effect)
        }
    }
}
