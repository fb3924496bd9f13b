public import Foundation

/// A command to a device's services, on `stepcompass/{device}/cmd/...`: the one definition the dashboard, the
/// command-line client and the compass share, with one decoder and one set of error messages.
///
/// | command | topic | payload |
/// |---|---|---|
/// | ``lock(bearing:threshold:)`` | `cmd/bearing-lock` | `{"action": "lock", "bearing"?, "threshold"?}` (bearing defaults to the current heading) |
/// | ``unlock`` | `cmd/bearing-lock` | `{"action": "unlock"}` |
/// | ``calibrate(reset:)`` | `cmd/calibrate` | `{"action": "start"}` or `{"action": "reset"}` |
/// | ``north(_:)`` | `cmd/settings` | `{"north": "true"}` or `{"north": "magnetic"}` |
/// | ``resetPosition`` | `cmd/reset-position` | `{}` |
/// | ``walk(start:name:)`` | `cmd/walk` | `{"action": "start", "name"?}` or `{"action": "stop"}` (the journal) |
public enum DeviceCommand: Sendable, Hashable {
    /// Lock a bearing (nil: the current heading), warning beyond `threshold` degrees (nil: the service's 10°).
    case lock(bearing: Double?, threshold: Double?)
    /// Release the bearing lock.
    case unlock
    /// Start calibrating, or with `reset` forget the calibration.
    case calibrate(reset: Bool)
    /// Publish headings relative to true or magnetic north.
    case north(NorthReference)
    /// Dead reckoning back to (0, 0).
    case resetPosition
    /// Start a walk of the journal (with an optional name, at most ``maximumWalkName`` characters), or stop it.
    case walk(start: Bool, name: String?)

    /// The longest walk name.
    public static let maximumWalkName = 120

    /// The allowed bearings: a compass heading.
    public static let bearings: Range<Double> = 0..<360
    /// The allowed thresholds, degrees.
    public static let thresholds: ClosedRange<Double> = 0.0.nextUp...180

    /// The command's topic below the device.
    public var topic: Topics.DeviceTopic {
        switch self {
        case .lock, .unlock: .commandBearingLock
        case .calibrate: .commandCalibrate
        case .north: .commandSettings
        case .resetPosition: .commandResetPosition
        case .walk: .commandWalk
        }
    }

    /// The payload as the contract writes it: a JSON object with sorted keys, numbers unrounded.
    public var payload: Data {
        var fields: [(String, String)] = []
        switch self {
        case .lock(let bearing, let threshold):
            fields.append(("action", "\"lock\""))
            if let bearing { fields.append(("bearing", Self.number(bearing))) }
            if let threshold { fields.append(("threshold", Self.number(threshold))) }
        case .unlock: fields.append(("action", "\"unlock\""))
        case .calibrate(let reset): fields.append(("action", reset ? "\"reset\"" : "\"start\""))
        case .north(let north): fields.append(("north", "\"\(north.rawValue)\""))
        case .resetPosition: break
        case .walk(let start, let name):
            fields.append(("action", start ? "\"start\"" : "\"stop\""))
            if start, let name, let encoded = try? JSONEncoder().encode(name) {
                fields.append(("name", String(decoding: encoded, as: UTF8.self)))
            }
        }
        let body = fields.sorted { $0.0 < $1.0 }.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
        return Data("{\(body)}".utf8)
    }

    /// Checks the numbers of a command made in code (the decoder checks those it reads).
    /// - Throws: ``InputError`` naming the field and its allowed range.
    public func validate() throws(InputError) {
        guard case .lock(let bearing, let threshold) = self else { return }
        if let bearing, !(bearing.isFinite && Self.bearings.contains(bearing)) { throw Self.badBearing }
        if let threshold, !(threshold.isFinite && Self.thresholds.contains(threshold)) { throw Self.badThreshold }
    }

    /// Reads a command from the JSON object sent on `topic`.
    /// - Parameters:
    ///   - topic: One of the four command topics.
    ///   - body: The decoded JSON object (unknown fields are ignored).
    /// - Throws: ``InputError`` saying which field is wrong and what it must be.
    public static func decode(_ topic: Topics.DeviceTopic, body: [String: Any]) throws(InputError) -> DeviceCommand {
        switch topic {
        case .commandBearingLock:
            switch body["action"] as? String {
            case "unlock": return .unlock
            case "lock":
                let bearing = try number(body, "bearing")
                let threshold = try number(body, "threshold")
                let command = DeviceCommand.lock(bearing: bearing, threshold: threshold)
                try command.validate()
                return command
            default: throw InputError(#"`action` must be "lock" or "unlock""#)
            }
        case .commandSettings:
            guard let text = body["north"] as? String, let north = NorthReference(rawValue: text) else {
                throw InputError(#"`north` must be "true" or "magnetic""#)
            }
            return .north(north)
        case .commandCalibrate:
            switch body["action"] as? String {
            case "start": return .calibrate(reset: false)
            case "reset": return .calibrate(reset: true)
            default: throw InputError(#"`action` must be "start" or "reset""#)
            }
        case .commandResetPosition:
            return .resetPosition
        case .commandWalk:
            switch body["action"] as? String {
            case "stop": return .walk(start: false, name: nil)
            case "start":
                guard let raw = body["name"], !(raw is NSNull) else { return .walk(start: true, name: nil) }
                guard let name = raw as? String else { throw InputError("`name` must be a string") }
                let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
                guard trimmed.count <= maximumWalkName else {
                    throw InputError("`name` is \(trimmed.count) characters; at most \(maximumWalkName)")
                }
                return .walk(start: true, name: trimmed.isEmpty ? nil : trimmed)
            default: throw InputError(#"`action` must be "start" or "stop""#)
            }
        default:
            throw InputError("'\(topic.rawValue)' is not a command topic")
        }
    }

    /// Reads a command from the JSON bytes sent on `topic`.
    /// - Throws: ``InputError`` when the bytes are not a JSON object or a field is wrong.
    public static func decode(_ topic: Topics.DeviceTopic, json: Data) throws(InputError) -> DeviceCommand {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            throw InputError("the payload is not a JSON object")
        }
        return try decode(topic, body: object)
    }

    /// Reads a command from the body of an HTTP request for `topic` (the dashboard's `POST /api/devices/{id}/...`): an
    /// empty body is `{}`.
    /// - Throws: ``bodyNotJSON`` when the bytes are not JSON, else ``InputError`` when they are not a JSON object or a
    ///   field is wrong.
    public static func decode(_ topic: Topics.DeviceTopic, httpBody: Data) throws(InputError) -> DeviceCommand {
        if httpBody.isEmpty { return try decode(topic, body: [:]) }
        guard let object = try? JSONSerialization.jsonObject(with: httpBody) else { throw bodyNotJSON }
        guard let body = object as? [String: Any] else { throw InputError("the body must be a JSON object") }
        return try decode(topic, body: body)
    }

    /// What ``decode(_:httpBody:)`` throws for a body that is not JSON at all.
    public static let bodyNotJSON = InputError("the body is not JSON")

    private static let badBearing = InputError("`bearing` must be a number with 0 ≤ bearing < 360")
    private static let badThreshold = InputError("`threshold` must be a number with 0 < threshold ≤ 180")

    /// A field that must be a number when present (null counts as absent).
    private static func number(_ body: [String: Any], _ key: String) throws(InputError) -> Double? {
        guard let raw = body[key], !(raw is NSNull) else { return nil }
        guard let number = raw as? NSNumber, !isBoolean(number), case let value = number.doubleValue, value.isFinite else {
            throw key == "bearing" ? badBearing : badThreshold
        }
        return value
    }

    /// Whether JSONSerialization read `true` or `false` (a `CFBoolean`). Not `is Bool`: on Linux every `NSNumber` of
    /// 0 or 1 casts to `Bool`, so `"bearing": 0` was refused as a boolean.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        type(of: number) == booleanType
    }

    /// The class of the numbers JSONSerialization reads `true` and `false` as.
    private static let booleanType = type(of: NSNumber(value: true))

    /// A number as the contract writes it: integral values without a fraction (`45`), others unrounded.
    private static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
