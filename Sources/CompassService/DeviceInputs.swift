import CompassKit
import Foundation
import ServiceRuntime

/// The payload of `{device}/imu`: one accelerometer and magnetometer reading (gyroscope optional).
struct IMUInput: Decodable {
    var timestamp: String?
    var accel: Vector3
    var mag: Vector3
    var gyro: Vector3?

    /// Checks the numbers; JSON cannot carry NaN, but a decoder may produce infinities from huge
    /// literals such as `1e999`.
    func validate() throws(InputError) {
        guard accel.isFinite else { throw InputError("'accel' must hold three finite numbers") }
        guard mag.isFinite else { throw InputError("'mag' must hold three finite numbers") }
        if let gyro, !gyro.isFinite { throw InputError("'gyro' must hold three finite numbers") }
        guard accel.squaredNorm > 0 else { throw InputError("'accel' is zero: no gravity direction") }
        guard mag.squaredNorm > 0 else { throw InputError("'mag' is zero: no magnetic field") }
    }
}

/// The payload of `{device}/location`; the compass needs the position, and the speed and course for the walking
/// direction.
struct LocationInput: Decodable {
    var timestamp: String?
    var latitude: Double
    var longitude: Double
    var altitude: Double?
    /// Metres per second; read leniently (a value that is not a number counts as absent, as before it was read).
    var speed: LenientNumber?
    /// Degrees clockwise from true north; read leniently (iOS sends −1 when it has none).
    var course: LenientNumber?
}

/// A number field the service only uses when it can: anything else (a string, an object) decodes as no value
/// rather than rejecting a message whose other fields are fine.
struct LenientNumber: Decodable {
    var value: Double?

    init(from decoder: any Decoder) throws {
        value = try? decoder.singleValueContainer().decode(Double.self)
    }
}

/// The payload of `{device}/permissions`.
struct PermissionsInput: Decodable {
    var motion: String?
    var location: String?
}

/// A sensor permission, as the contract spells it.
enum SensorPermission: String, Sendable, Hashable {
    case authorized, denied, notDetermined, restricted, unavailable

    /// Parses a permission field.
    static func parse(_ text: String, field: String) throws(InputError) -> SensorPermission {
        guard let value = SensorPermission(rawValue: text) else {
            throw InputError(
                "'\(field)' is '\(text.prefix(40))'; expected authorized, denied, notDetermined, restricted or unavailable")
        }
        return value
    }
}

/// The payload of `{device}/cmd/bearing-lock`.
struct BearingLockCommand: Decodable {
    var action: String
    var bearing: Double?
    var threshold: Double?
}

/// The payload of `{device}/cmd/calibrate`.
struct CalibrateCommand: Decodable {
    var action: String
}

/// The payload of `{device}/cmd/settings`.
struct SettingsCommand: Decodable {
    var north: String
}

/// Reads a contract timestamp, or the receive time when it is absent.
enum SampleTime {
    static func date(_ text: String?, received: Date) throws(InputError) -> Date {
        guard let text else { return received }
        guard let date = Timestamp.parse(text) else {
            throw InputError("'timestamp' is '\(text.prefix(40))', not an ISO 8601 UTC time")
        }
        return date
    }
}
