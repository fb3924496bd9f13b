import CompassKit
import Foundation
import ServiceRuntime

/// An IMU sample in the compass's vector type.
struct IMUInput {
    var timestamp: String?
    var accel: Vector3
    var mag: Vector3
    var gyro: Vector3?

    init(_ payload: IMUPayload) {
        timestamp = payload.timestamp
        accel = Vector3(payload.accel.x, payload.accel.y, payload.accel.z)
        mag = Vector3(payload.mag.x, payload.mag.y, payload.mag.z)
        gyro = payload.gyro.map { Vector3($0.x, $0.y, $0.z) }
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
