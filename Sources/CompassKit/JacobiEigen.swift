/// Cyclic Jacobi eigen-decomposition of a small dense symmetric matrix.
///
/// Shared by the 3×3 ``Matrix3/symmetricEigen()`` and the 10×10 normal matrix of the ellipsoid
/// fit, whose eigenvector of the smallest eigenvalue is the fitted quadric.
enum JacobiEigen {
    /// Decomposes a symmetric matrix.
    /// - Parameters:
    ///   - matrix: `size × size` entries, row-major; only symmetry is assumed.
    ///   - size: The dimension.
    ///   - maxSweeps: An upper bound on full sweeps; convergence is quadratic, so 50 is ample.
    /// - Returns: Eigenvalues in ascending order and the eigenvectors as the columns of a row-major
    ///   `size × size` array (component `i` of vector `k` at `i * size + k`).
    static func decompose(_ matrix: [Double], size n: Int, maxSweeps: Int = 50) -> (values: [Double], vectors: [Double]) {
        var a = matrix
        var v = [Double](repeating: 0, count: n * n)
        for i in 0..<n { v[i * n + i] = 1 }
        var total = 0.0
        for value in a { total += value * value }
        for _ in 0..<maxSweeps {
            var off = 0.0
            for p in 0..<n {
                for q in (p + 1)..<max(p + 1, n) { off += a[p * n + q] * a[p * n + q] }
            }
            if off <= 1e-30 * total || off == 0 { break }
            for p in 0..<(n - 1) {
                for q in (p + 1)..<n {
                    let apq = a[p * n + q]
                    if apq == 0 { continue }
                    let theta = (a[q * n + q] - a[p * n + p]) / (2 * apq)
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot()
                    let s = t * c
                    for k in 0..<n {
                        let akp = a[k * n + p]
                        let akq = a[k * n + q]
                        a[k * n + p] = c * akp - s * akq
                        a[k * n + q] = s * akp + c * akq
                    }
                    for k in 0..<n {
                        let apk = a[p * n + k]
                        let aqk = a[q * n + k]
                        a[p * n + k] = c * apk - s * aqk
                        a[q * n + k] = s * apk + c * aqk
                    }
                    for k in 0..<n {
                        let vkp = v[k * n + p]
                        let vkq = v[k * n + q]
                        v[k * n + p] = c * vkp - s * vkq
                        v[k * n + q] = s * vkp + c * vkq
                    }
                }
            }
        }
        let order = (0..<n).sorted { a[$0 * n + $0] < a[$1 * n + $1] }
        var values = [Double](repeating: 0, count: n)
        var vectors = [Double](repeating: 0, count: n * n)
        for (k, source) in order.enumerated() {
            values[k] = a[source * n + source]
            for i in 0..<n { vectors[i * n + k] = v[i * n + source] }
        }
        return (values, vectors)
    }
}
