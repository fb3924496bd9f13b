import Foundation
import ServiceRuntime

/// A command the page sends for a device, checked before it goes on the bus, so a mistake gets a
/// 400 with a reason instead of an error report from the compass service.
enum DeviceCommand: Sendable, Hashable {
    case lock(bearing: Double?, threshold: Double?)
    case unlock
    case north(String)
    case calibrate(String)
    case resetPosition

    /// The device topic the command goes to.
    var topic: Topics.DeviceTopic {
        switch self {
        case .lock, .unlock: .commandBearingLock
        case .north: .commandSettings
        case .calibrate: .commandCalibrate
        case .resetPosition: .commandResetPosition
        }
    }

    /// The contract's payload.
    var payload: [String: Any] {
        switch self {
        case .lock(let bearing, let threshold):
            var payload: [String: Any] = ["action": "lock"]
            if let bearing { payload["bearing"] = bearing }
            if let threshold { payload["threshold"] = threshold }
            return payload
        case .unlock: return ["action": "unlock"]
        case .north(let north): return ["north": north]
        case .calibrate(let action): return ["action": action]
        case .resetPosition: return [:]
        }
    }

    /// The payload as JSON bytes.
    var json: Data {
        (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    /// Reads a bearing-lock body: `{"action": "lock", "bearing"?, "threshold"?}` or `{"action": "unlock"}`.
    static func bearingLock(_ body: [String: Any]) throws(CommandError) -> DeviceCommand {
        switch body["action"] as? String {
        case "unlock": return .unlock
        case "lock":
            let bearing = try number(body, "bearing", in: 0..<360, describe: "0 ≤ bearing < 360")
            let threshold = try number(body, "threshold", in: 0.0.nextUp...180, describe: "0 < threshold ≤ 180")
            return .lock(bearing: bearing, threshold: threshold)
        default: throw CommandError("`action` must be \"lock\" or \"unlock\"")
        }
    }

    /// Reads a settings body: `{"north": "true" | "magnetic"}`.
    static func settings(_ body: [String: Any]) throws(CommandError) -> DeviceCommand {
        guard let north = body["north"] as? String, north == "true" || north == "magnetic" else {
            throw CommandError("`north` must be \"true\" or \"magnetic\"")
        }
        return .north(north)
    }

    /// Reads a calibrate body: `{"action": "start" | "reset"}`.
    static func calibrate(_ body: [String: Any]) throws(CommandError) -> DeviceCommand {
        guard let action = body["action"] as? String, action == "start" || action == "reset" else {
            throw CommandError("`action` must be \"start\" or \"reset\"")
        }
        return .calibrate(action)
    }

    private static func number(
        _ body: [String: Any], _ key: String, in range: some RangeExpression<Double>, describe: String
    ) throws(CommandError) -> Double? {
        guard let raw = body[key], !(raw is NSNull) else { return nil }
        guard let value = (raw as? NSNumber).map(\.doubleValue), !(raw is Bool), value.isFinite, range.contains(value) else {
            throw CommandError("`\(key)` must be a number with \(describe)")
        }
        return value
    }
}

/// A command body that does not follow the contract.
struct CommandError: Error, Sendable, Hashable, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
