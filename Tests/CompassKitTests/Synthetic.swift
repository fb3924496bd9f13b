import CompassKit
import Foundation
import StepCompassTesting

/// Synthetic readings in the contract's device frame.
enum Synthetic {
    static let gravity = 9.80665
    /// A 48 µT field with 64° dip, in world (east, north, up) coordinates.
    static let earthField = Vector3(0, 48 * cos(64 * Double.pi / 180), -48 * sin(64 * Double.pi / 180))

    /// The device-to-world rotation for a heading (clockwise from north), pitch (top raised) and
    /// roll (right edge lowered), all in degrees: R = Rz(−h)·Rx(p)·Ry(r).
    static func rotation(heading: Double, pitch: Double, roll: Double) -> Matrix3 {
        Matrix3.rotation(axis: Vector3(0, 0, 1), degrees: -heading)
            * Matrix3.rotation(axis: Vector3(1, 0, 0), degrees: pitch)
            * Matrix3.rotation(axis: Vector3(0, 1, 0), degrees: roll)
    }

    /// Accelerometer and magnetometer readings for a device held still in an orientation.
    static func reading(heading: Double, pitch: Double, roll: Double, field: Vector3 = earthField) -> (
        accel: Vector3, mag: Vector3
    ) {
        let toDevice = rotation(heading: heading, pitch: pitch, roll: roll).transposed
        return (toDevice * Vector3(0, 0, gravity), toDevice * field)
    }

    /// A random orientation spread over the whole sphere (heading uniform, sin(pitch) uniform,
    /// roll uniform), as a thorough figure-8 would give.
    static func randomOrientation(using rng: inout SeededGenerator) -> (heading: Double, pitch: Double, roll: Double) {
        let heading = Double.random(in: 0..<360, using: &rng)
        let pitch = asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi
        let roll = Double.random(in: -180..<180, using: &rng)
        return (heading, pitch, roll)
    }

    /// The distortion used in calibration tests: W⁻¹, symmetric, scale errors up to ±8% and
    /// cross-coupling up to 4%.
    static let softIronDistortion = Matrix3(
        rows: Vector3(1.08, 0.03, -0.02), Vector3(0.03, 0.92, 0.04), Vector3(-0.02, 0.04, 1.01))
    static let hardIronOffset = Vector3(40, -25, 60)
}
