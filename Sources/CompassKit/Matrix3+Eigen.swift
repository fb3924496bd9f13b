/// Symmetric eigen-decomposition and the functions built on it.
extension Matrix3 {
    /// The eigen-decomposition of a symmetric matrix, by Jacobi rotations.
    ///
    /// Jacobi is slow for big matrices but unconditionally stable and accurate for the small,
    /// well-scaled symmetric matrices of a calibration fit, and it needs no LAPACK.
    ///
    /// - Returns: The eigenvalues in ascending order, and a matrix whose columns are the
    ///   matching unit eigenvectors (so `self ≈ V · diag(values) · Vᵀ`). Only the upper triangle is
    ///   read, so a slightly asymmetric input is treated as its symmetric part.
    public func symmetricEigen() -> (values: Vector3, vectors: Matrix3) {
        let a = [
            row0.x, row0.y, row0.z,
            row0.y, row1.y, row1.z,
            row0.z, row1.z, row2.z,
        ]
        let (values, vectors) = JacobiEigen.decompose(a, size: 3)
        return (
            Vector3(values[0], values[1], values[2]),
            Matrix3(
                rows: Vector3(vectors[0], vectors[1], vectors[2]),
                Vector3(vectors[3], vectors[4], vectors[5]),
                Vector3(vectors[6], vectors[7], vectors[8]))
        )
    }

    /// The symmetric positive square root `S` with `S · S = self`, or `nil` if the matrix has a
    /// non-positive eigenvalue (it is then no ellipsoid shape and must be rejected).
    public func symmetricSquareRoot() -> Matrix3? {
        let (values, v) = symmetricEigen()
        guard values.x > 0, values.y > 0, values.z > 0 else { return nil }
        let d = Matrix3(diagonal: Vector3(values.x.squareRoot(), values.y.squareRoot(), values.z.squareRoot()))
        return v * d * v.transposed
    }
}
