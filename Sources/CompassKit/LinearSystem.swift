/// Dense linear solves for the small normal equations of the sphere fit.
enum LinearSystem {
    /// Solves `A · x = b` by Gaussian elimination with partial pivoting.
    /// - Parameters:
    ///   - matrix: `size × size` entries, row-major.
    ///   - rhs: The right-hand side.
    ///   - size: The dimension.
    /// - Returns: The solution, or `nil` when a pivot is negligible against the matrix's scale
    ///   (the data do not determine the unknowns).
    static func solve(_ matrix: [Double], _ rhs: [Double], size n: Int) -> [Double]? {
        var a = matrix
        var b = rhs
        var scale = 0.0
        for value in a { scale = max(scale, abs(value)) }
        guard scale > 0, scale.isFinite else { return nil }
        for col in 0..<n {
            var pivotRow = col
            for row in (col + 1)..<max(col + 1, n) where abs(a[row * n + col]) > abs(a[pivotRow * n + col]) {
                pivotRow = row
            }
            guard abs(a[pivotRow * n + col]) > 1e-13 * scale else { return nil }
            if pivotRow != col {
                for k in 0..<n { a.swapAt(col * n + k, pivotRow * n + k) }
                b.swapAt(col, pivotRow)
            }
            let pivot = a[col * n + col]
            for row in (col + 1)..<max(col + 1, n) {
                let factor = a[row * n + col] / pivot
                if factor == 0 { continue }
                for k in col..<n { a[row * n + k] -= factor * a[col * n + k] }
                b[row] -= factor * b[col]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<max(row + 1, n) { sum -= a[row * n + k] * x[k] }
            x[row] = sum / a[row * n + row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
