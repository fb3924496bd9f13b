/// A 3×3 matrix of rows, just enough linear algebra for frame rotations and soft-iron distortion.
struct Matrix3: Sendable, Hashable {
    var r0: SIMD3<Double>
    var r1: SIMD3<Double>
    var r2: SIMD3<Double>

    static let identity = Matrix3(r0: [1, 0, 0], r1: [0, 1, 0], r2: [0, 0, 1])

    var transposed: Matrix3 {
        Matrix3(r0: [r0.x, r1.x, r2.x], r1: [r0.y, r1.y, r2.y], r2: [r0.z, r1.z, r2.z])
    }

    var rows: [[Double]] { [[r0.x, r0.y, r0.z], [r1.x, r1.y, r1.z], [r2.x, r2.y, r2.z]] }

    var trace: Double { r0.x + r1.y + r2.z }

    var determinant: Double {
        (r0 * Matrix3.cross(r1, r2)).sum()
    }

    /// The inverse by cofactors; only called on near-identity distortion matrices, which are well conditioned.
    var inverse: Matrix3 {
        let c0 = Matrix3.cross(r1, r2)
        let c1 = Matrix3.cross(r2, r0)
        let c2 = Matrix3.cross(r0, r1)
        let det = (r0 * c0).sum()
        // The columns of the inverse are the cofactor rows divided by the determinant.
        return Matrix3(r0: c0 / det, r1: c1 / det, r2: c2 / det).transposed
    }

    static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((m.r0 * v).sum(), (m.r1 * v).sum(), (m.r2 * v).sum())
    }

    static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let bt = b.transposed
        return Matrix3(r0: bt * a.r0, r1: bt * a.r1, r2: bt * a.r2)
    }

    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    /// The rotation vector (axis × angle, radians) of a rotation matrix: the logarithm map, used to turn the
    /// change of orientation between two samples into a body rate for the gyroscope.
    var rotationVector: SIMD3<Double> {
        let skew = SIMD3(r2.y - r1.z, r0.z - r2.x, r1.x - r0.y) / 2  // sin(angle) · axis
        let cosine = min(1, max(-1, (trace - 1) / 2))
        let angle = Math.acos(cosine)
        let sine = (skew * skew).sum().squareRoot()
        if sine < 1e-12 { return skew }  // small angle: sin(angle) ≈ angle
        return skew * (angle / sine)
    }
}
