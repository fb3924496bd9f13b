import DashboardKit

/// Renders ``WatchState`` for a terminal, in the dashboard's words (every text comes from the view
/// model, so the terminal and the web page say the same thing).
public enum WatchScreen {
    /// The whole screen, one string a line.
    /// - Parameters:
    ///   - state: What is known.
    ///   - width: The compass tape's width.
    ///   - colour: Whether to use ANSI colour (a red band when the bearing lock is exceeded).
    public static func lines(_ state: WatchState, width: Int = 45, colour: Bool = false) -> [String] {
        var lines: [String] = []
        let devices = state.model.deviceIDs
        guard let id = state.deviceID, let view = state.deviceView else {
            lines.append(
                state.filters.device.map { "StepCompass — waiting for \($0) to publish…" }
                    ?? "StepCompass — waiting for a device to publish…")
            lines += footer(state)
            return lines
        }
        var title = "StepCompass — \(id)"
        if devices.count > 1 { title += " (devices: \(devices.joined(separator: ", ")))" }
        lines.append(title)
        lines += TextCompass.tape(
            heading: view.heading, width: width,
            lockedBearing: view.bearingLock.locked ? view.bearingLock.bearing : nil)
        lines.append(joined([view.headingText, view.accuracyText, view.northText, view.declinationText]))
        if let status = view.headingStatusText { lines.append("  \(status)") }
        lines.append(joined([view.stepsText, view.positionText, view.distanceText]))
        lines.append(joined([view.calibration.text, view.tiltText]))
        if let prompt = view.calibration.prompt { lines.append("  \(prompt)") }
        if let interference = view.interferenceText { lines.append("  \(interference)") }
        var lock = "Bearing lock: \(view.bearingLock.text)"
        if view.bearingLock.exceeded {
            lock += " — OFF COURSE"
            if colour { lock = "\u{1B}[41;97m\(lock)\u{1B}[0m" }
        }
        lines.append(lock)
        if let location = view.location {
            lines.append(joined([location.text, location.elevationMetresText]))
        } else {
            lines.append("Location: \(DisplayText.unknown)")
        }
        lines.append(view.permissions.text)
        if let guidance = view.permissions.guidance { lines.append("  \(guidance)") }
        lines += footer(state)
        return lines
    }

    /// One line for a change (the output when stdout is not a terminal), nil when there is nothing to say.
    public static func line(for change: WatchState.Change, in state: WatchState) -> String? {
        switch change {
        case .device:
            guard let view = state.deviceView else { return nil }
            let lock = "Bearing lock: \(view.bearingLock.text)" + (view.bearingLock.exceeded ? " — OFF COURSE" : "")
            return joined(
                [view.id, view.stepsText, view.headingText, view.positionText, view.calibration.text, lock],
                separator: " | ")
        case .markers:
            return state.model.markersView.statusText
        case .services:
            return servicesLine(state)
        case .unreadable:
            return state.lastProblem.map { "unreadable message: \($0)" }
        }
    }

    private static func footer(_ state: WatchState) -> [String] {
        var lines = [state.model.markersView.statusText]
        if let services = servicesLine(state) { lines.append(services) }
        if state.unreadableCount > 0, let problem = state.lastProblem {
            lines.append("\(state.unreadableCount) unreadable message\(state.unreadableCount == 1 ? "" : "s"), the last: \(problem)")
        }
        lines.append("Ctrl-C to quit")
        return lines
    }

    private static func servicesLine(_ state: WatchState) -> String? {
        let services = state.model.servicesView
        guard !services.isEmpty else { return nil }
        return "Services: " + services.map { "\($0.service) \($0.state)" }.joined(separator: " · ")
    }

    private static func joined(_ parts: [String?], separator: String = " · ") -> String {
        parts.compactMap { $0 }.joined(separator: separator)
    }
}
