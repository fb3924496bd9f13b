import DashboardKit
public import Foundation
public import ServiceRuntime

/// A command to one device's compass or position service, as the contract spells it on
/// `{device}/cmd/...` (QoS 1, not retained).
public enum DeviceCommand: Sendable, Hashable {
    /// Lock a bearing (nil: the current heading) with an optional threshold in degrees.
    case lock(bearing: Double?, threshold: Double?)
    case unlock
    /// Start a calibration (the figure-8), or reset it (`reset`).
    case calibrate(reset: Bool)
    /// Which north the published heading refers to.
    case north(NorthReference)
    /// Back to (0, 0) with steps and distance 0.
    case resetPosition

    /// The north reference of `cmd/settings`.
    public enum NorthReference: String, Sendable, Hashable, CaseIterable {
        case trueNorth = "true"
        case magnetic
    }

    /// Checks the arguments before anything is sent.
    /// - Throws: ``StepCompassClientError/Code/invalidInput`` saying which argument and why.
    public func validate() throws(StepCompassClientError) {
        guard case .lock(let bearing, let threshold) = self else { return }
        if let bearing, !(bearing.isFinite && bearing >= 0 && bearing < 360) {
            throw .invalidInput("the bearing must be a compass heading from 0 up to (not including) 360 degrees, not \(bearing)")
        }
        if let threshold, !(threshold.isFinite && threshold > 0 && threshold <= 180) {
            throw .invalidInput("the threshold must be more than 0 and at most 180 degrees, not \(threshold)")
        }
    }

    /// The command's topic suffix.
    public var topic: Topics.DeviceTopic {
        switch self {
        case .lock, .unlock: .commandBearingLock
        case .calibrate: .commandCalibrate
        case .north: .commandSettings
        case .resetPosition: .commandResetPosition
        }
    }

    /// The JSON payload, keys sorted; a lock's bearing and threshold are left out when not given, so the
    /// compass service uses the current heading and its default threshold.
    public var payload: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let result: Data?
        switch self {
        case .lock(let bearing, let threshold):
            result = try? encoder.encode(BearingLockCommand(action: "lock", bearing: bearing, threshold: threshold))
        case .unlock: result = try? encoder.encode(BearingLockCommand(action: "unlock", bearing: nil, threshold: nil))
        case .calibrate(let reset): result = try? encoder.encode(ActionCommand(action: reset ? "reset" : "start"))
        case .north(let north): result = try? encoder.encode(SettingsCommand(north: north.rawValue))
        case .resetPosition: result = Data("{}".utf8)
        }
        return result ?? Data("{}".utf8)
    }

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
        case .north(let north): return "set \(device) to \(north == .trueNorth ? "true" : "magnetic") north"
        case .resetPosition: return "reset the position of \(device) to (0, 0)"
        }
    }

    /// `45°`, `45.5°`: as typed, to a tenth.
    static func degrees(_ value: Double) -> String {
        var text = DisplayText.decimal(value, places: 1)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text + "°"
    }
}

private struct BearingLockCommand: Encodable {
    let action: String
    let bearing: Double?
    let threshold: Double?
}

private struct ActionCommand: Encodable {
    let action: String
}

private struct SettingsCommand: Encodable {
    let north: String
}
