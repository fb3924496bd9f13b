import CompassKit
import RealModule

extension Matrix3 {
    /// The rotation vector (axis × angle, radians) of a rotation matrix: the logarithm map, used to turn the
    /// change of orientation between two samples into a body rate for the gyroscope. Only the simulator needs it,
    /// so it is here rather than in CompassKit.
    var rotationVector: Vector3 {
        let skew = Vector3(row2.y - row1.z, row0.z - row2.x, row1.x - row0.y) / 2  // sin(angle) · axis
        let cosine = min(1, max(-1, (trace - 1) / 2))
        let angle = Double.acos(cosine)
        let sine = skew.norm
        if sine < 1e-12 { return skew }  // small angle: sin(angle) ≈ angle
        return skew * (angle / sine)
    }
}
