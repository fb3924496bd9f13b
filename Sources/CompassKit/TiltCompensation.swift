import Foundation

/// Tilt-compensated compass maths in the bus contract's device frame (x right, y top, z out of
/// the screen; a device lying face up reads accel ≈ [0, 0, +9.81]).
///
/// It builds the world frame as Android's `SensorManager.getRotationMatrix` does: East =
/// B × A, North = A × East, Up = A (normalised), with A the accelerometer reading (which points
/// up when the device is still) and B the corrected magnetic field. The device's axes expressed
/// in that frame give every angle without Euler-angle sign traps, so face-down works and the
/// results equal `getOrientation` (heading = azimuth, pitch = −pitch, roll = roll).
///
/// Near vertical the projection of +y on the horizontal plane vanishes and its heading becomes
/// noise. Above 70° pitch the heading direction is therefore blended, with a smoothstep weight
/// reaching 1 at ±90°, towards the horizontal projection of the screen normal pointing away from
/// the top's tilt (−z when the top is raised, +z when lowered). That is the direction the camera
/// or the screen faces, which continues the heading of +y as the device pitches up, so holding a
/// phone upright does not make the heading jump.
public enum TiltCompensation {
    /// The sine of the pitch at which the blend towards the screen normal starts (70°).
    static let blendStart = sin(70.0 * Double.pi / 180)

    /// Computes the orientation from one reading.
    ///
    /// - Parameters:
    ///   - gravity: The accelerometer reading (or its low-passed gravity estimate) in m/s², in
    ///     the device frame; only its direction matters.
    ///   - magneticField: The calibrated magnetic field in µT, in the device frame.
    /// - Returns: `nil` for degenerate input: a zero or non-finite vector, or a field (nearly)
    ///   parallel to gravity, where no horizontal field is left to point north (the angle
    ///   between them below 0.06°, sin < 1e-3).
    public static func orientation(gravity: Vector3, magneticField: Vector3) -> Orientation? {
        let gravityNorm = gravity.norm
        let fieldNorm = magneticField.norm
        guard gravityNorm > 1e-9, fieldNorm > 1e-9, gravityNorm.isFinite, fieldNorm.isFinite else { return nil }
        let up = gravity / gravityNorm
        let eastRaw = magneticField.cross(up)
        let eastNorm = eastRaw.norm
        guard eastNorm > 1e-3 * fieldNorm else { return nil }
        let east = eastRaw / eastNorm
        let north = up.cross(east)

        // The device's +y and +z axes in world (east, north, up) coordinates.
        let yUp = up.y
        var dEast = east.y
        var dNorth = north.y
        let s = abs(yUp)
        if s > blendStart {
            let t = min(1, (s - blendStart) / (1 - blendStart))
            let w = t * t * (3 - 2 * t)
            let sign: Double = yUp > 0 ? -1 : 1
            dEast += w * sign * east.z
            dNorth += w * sign * north.z
        }
        let length = (dEast * dEast + dNorth * dNorth).squareRoot()
        guard length > 1e-12 else { return nil }

        let pitch = Angle.degrees(asin(max(-1, min(1, yUp)))) + 0.0
        var roll = Angle.degrees(atan2(-up.x, up.z)) + 0.0
        if roll <= -180 { roll = 180 }
        let vertical = magneticField.dot(up)
        let inclination = Angle.degrees(asin(max(-1, min(1, -vertical / fieldNorm))))
        let horizontal = max(0, fieldNorm * fieldNorm - vertical * vertical).squareRoot()
        return Orientation(
            east: dEast / length, north: dNorth / length, pitch: pitch, roll: roll,
            inclination: inclination, fieldStrength: fieldNorm, horizontalFieldStrength: horizontal,
            tiltUncertainty: max(0, min(1, 1 - length)))
    }
}
