import CompassKit
import Foundation
import GeoMagnetism

/// Synthetic IMU readings of a device held in a known attitude in the WMM field.
///
/// World frame east-north-up; the device frame is the contract's (x right, y top, z out of the
/// screen). The attitude is heading (of +y, clockwise from true north), then pitch (top raised)
/// about the device's x axis, then roll (right edge lowered) about its y axis.
struct DeviceMotion {
    /// The field in µT, east-north-up.
    let field: Vector3

    init(field magnetic: MagneticField) {
        let field = magnetic
        self.field = Vector3(field.east / 1_000, field.north / 1_000, -field.down / 1_000)
    }

    /// The rotation taking device coordinates to world coordinates.
    static func rotation(heading: Double, pitch: Double, roll: Double) -> Matrix3 {
        let a = -heading * .pi / 180
        let p = pitch * .pi / 180
        let r = roll * .pi / 180
        let yaw = Matrix3(rows: Vector3(cos(a), -sin(a), 0), Vector3(sin(a), cos(a), 0), Vector3(0, 0, 1))
        let pitchMatrix = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, cos(p), -sin(p)), Vector3(0, sin(p), cos(p)))
        let rollMatrix = Matrix3(rows: Vector3(cos(r), 0, sin(r)), Vector3(0, 1, 0), Vector3(-sin(r), 0, cos(r)))
        return yaw * pitchMatrix * rollMatrix
    }

    /// The accelerometer and (undistorted) magnetometer readings in the device frame.
    func reading(heading: Double, pitch: Double, roll: Double) -> (accel: Vector3, mag: Vector3) {
        let toDevice = Self.rotation(heading: heading, pitch: pitch, roll: roll).transposed
        return (toDevice * Vector3(0, 0, 9.80665), toDevice * field)
    }

    /// The IMU payload.
    static func payload(timestamp: Date, accel: Vector3, mag: Vector3) -> String {
        "{\"timestamp\":\"\(format(timestamp))\",\"accel\":[\(accel.x),\(accel.y),\(accel.z)],"
            + "\"mag\":[\(mag.x),\(mag.y),\(mag.z)]}"
    }

    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}
