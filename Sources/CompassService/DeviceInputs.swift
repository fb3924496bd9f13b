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
