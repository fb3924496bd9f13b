import DashboardKit
import Foundation
public import ServiceRuntime

extension DeviceCommand {
    /// What was sent, in words: `locked walker-1 at 45° (threshold 10°)`.
    public func summary(device: String) -> String {
        switch self {
        case .lock(let bearing, let threshold):
            let at = bearing.map { "at \(Self.degrees($0))" } ?? "at its current heading"
            let limit = threshold.map { " (threshold \(Self.degrees($0)))" } ?? ""
            return "locked \(device) \(at)\(limit)"
        case .unlock: return "unlocked \(device)"
        case .calibrate(let reset):
            return reset ? "reset the compass calibration of \(device)" : "started calibrating \(device): move it in a figure-8"
        case .north(let north): return "set \(device) to \(north == .true ? "true" : "magnetic") north"
        case .resetPosition: return "reset the position of \(device) to (0, 0)"
        case .walk(let start, let name):
            guard start else { return "stopped the walk of \(device)" }
            return "started a walk of \(device)" + (name.map { " named '\($0)'" } ?? "")
        }
    }

    /// Checks a walk's name as the journal will (trimmed, at most ``maximumWalkName`` characters), before sending.
    /// - Throws: ``StepCompassClientError/Code/invalidInput``.
    public static func validate(walkName name: String) throws(StepCompassClientError) {
        let length = name.trimmingCharacters(in: .whitespacesAndNewlines).count
        guard length <= maximumWalkName else {
            throw .invalidInput("--name is \(length) characters; at most \(maximumWalkName)")
        }
    }

    /// `45°`, `45.5°`: as typed, to a tenth.
    static func degrees(_ value: Double) -> String {
        var text = DisplayText.decimal(value, places: 1)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text + "°"
    }
}
