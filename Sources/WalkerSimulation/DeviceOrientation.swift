import CompassKit
import RealModule

/// The phone's attitude and the rotation from its device frame to the world frame.
///
/// Frames (the bus contract's): the **device** frame has x to the right of the screen, y to the top of the device
/// and z out of the screen. The **world** frame is NED: x north, y east, z down.
///
/// The attitude is built the way a person holds a phone: start flat, face up, top pointing north (device x = east,
/// y = north, z = up); turn it about the vertical to `yaw` (clockwise from north, the compass heading of the top
/// edge); raise the top edge by `pitch` (a rotation about the device x axis); lower the right edge by `roll`
/// (a rotation about the device y axis). Those are the contract's signs: pitch positive when the top edge is
/// raised, roll positive when the right edge is lowered, and the heading is the direction of +y projected on the
/// horizontal plane, which is `yaw` for any |pitch| < 90°.
struct DeviceOrientation: Sendable, Hashable {
    /// Degrees clockwise from true north.
    var yaw: Double
    /// Degrees, positive when the top edge is raised.
    var pitch: Double
    /// Degrees, positive when the right edge is lowered.
    var roll: Double

    /// The device-to-world (NED) rotation: `world = matrix · device`, so `device = matrixᵀ · world`.
    var matrix: Matrix3 {
        let (sy, cy) = (Double.sin(Angle.radians(yaw)), Double.cos(Angle.radians(yaw)))
        let (sp, cp) = (Double.sin(Angle.radians(pitch)), Double.cos(Angle.radians(pitch)))
        let (sr, cr) = (Double.sin(Angle.radians(roll)), Double.cos(Angle.radians(roll)))
        // Yaw: about world down, taking north towards east.
        let yawMatrix = Matrix3(rows: Vector3(cy, -sy, 0), Vector3(sy, cy, 0), Vector3(0, 0, 1))
        // Flat, face up, top north: device x → east, y → north, z → up (= −down).
        let flat = Matrix3(rows: Vector3(0, 1, 0), Vector3(1, 0, 0), Vector3(0, 0, -1))
        // Pitch: about device x, taking +y towards +z (top edge up).
        let pitchMatrix = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, cp, -sp), Vector3(0, sp, cp))
        // Roll: about device y, taking +x towards −z (right edge down).
        let rollMatrix = Matrix3(rows: Vector3(cr, 0, sr), Vector3(0, 1, 0), Vector3(-sr, 0, cr))
        return yawMatrix * flat * pitchMatrix * rollMatrix
    }
}
