import Foundation

/// The 10-parameter ellipsoid fit: hard-iron offset and symmetric soft-iron matrix.
///
/// A general quadric `xᵀAx + 2bᵀx + j = 0` is fitted by algebraic least squares: the unit
/// coefficient vector minimising the residual is the eigenvector of the smallest eigenvalue of
/// the 10×10 matrix `DᵀD` (AN4246's 10-element method). Data are first centred and scaled to unit
/// RMS radius, which keeps `DᵀD` well conditioned.
///
/// From the quadric: centre `c = −A⁻¹b`, shape `M = A / (cᵀAc − j)` so that `(x − c)ᵀM(x − c) = 1`.
/// `M` must be positive definite (all eigenvalues > 0), otherwise the data (usually from poor
/// orientation coverage) describe a hyperboloid and the fit is refused. The soft-iron matrix is
/// `W = R·√M` (the symmetric root), which maps every sample onto the sphere of radius `R`:
/// `|W(x − c)| = R`. The rotation part of the distortion cannot be observed and is taken as none.
public struct EllipsoidFit: Sendable, Hashable {
    /// The fitted centre: the hard-iron offset in µT.
    public var center: Vector3
    /// The symmetric soft-iron matrix `W`: `W·(raw − center)` lies on a sphere of ``radius``.
    public var softIron: Matrix3
    /// The radius of the corrected sphere in µT: the requested one, or ``fittedRadius``.
    public var radius: Double
    /// The geometric mean of the ellipsoid's semi-axes in µT: the field strength as the sensor
    /// sees it, before any rescaling.
    public var fittedRadius: Double
    /// The semi-axes of the fitted ellipsoid in µT, ascending.
    public var semiAxes: Vector3
    /// The RMS of `|W(x − c)| − radius` over the samples, in µT.
    public var residual: Double

    /// Creates a fit result.
    /// - Parameters:
    ///   - center: The hard-iron offset.
    ///   - softIron: The soft-iron matrix.
    ///   - radius: The corrected radius.
    ///   - fittedRadius: The geometric-mean radius of the raw ellipsoid.
    ///   - semiAxes: The raw ellipsoid's semi-axes.
    ///   - residual: The RMS residual after correction.
    public init(
        center: Vector3, softIron: Matrix3, radius: Double, fittedRadius: Double, semiAxes: Vector3,
        residual: Double
    ) {
        self.center = center
        self.softIron = softIron
        self.radius = radius
        self.fittedRadius = fittedRadius
        self.semiAxes = semiAxes
        self.residual = residual
    }

    /// Fits an ellipsoid to magnetometer samples.
    ///
    /// - Parameters:
    ///   - samples: Raw readings in µT; at least 10, ideally hundreds covering all orientations.
    ///   - radius: The radius the corrected field should have (the expected field strength, e.g.
    ///     the WMM's F in µT); `nil` keeps the fitted radius, so that `det W = 1` and the
    ///     correction only reshapes.
    /// - Throws: ``FitError`` with `tooFewSamples`, `degenerate` or `notAnEllipsoid`.
    /// - Returns: The fitted ellipsoid.
    public static func fit(_ samples: [Vector3], radius: Double? = nil) throws(FitError) -> EllipsoidFit {
        guard samples.count >= 10 else { throw FitError(.tooFewSamples, "an ellipsoid fit needs at least 10 samples") }
        var mean = Vector3.zero
        for sample in samples { mean += sample }
        mean = mean / Double(samples.count)
        var meanSquare = 0.0
        for sample in samples { meanSquare += (sample - mean).squaredNorm }
        let scale = (meanSquare / Double(samples.count)).squareRoot()
        guard mean.isFinite, scale > 0, scale.isFinite else { throw FitError(.degenerate, "samples do not spread") }

        var normal = [Double](repeating: 0, count: 100)
        var row = [Double](repeating: 0, count: 10)
        for sample in samples {
            let u = (sample - mean) / scale
            row[0] = u.x * u.x
            row[1] = u.y * u.y
            row[2] = u.z * u.z
            row[3] = 2 * u.x * u.y
            row[4] = 2 * u.x * u.z
            row[5] = 2 * u.y * u.z
            row[6] = 2 * u.x
            row[7] = 2 * u.y
            row[8] = 2 * u.z
            row[9] = 1
            for i in 0..<10 {
                let ri = row[i]
                for j in i..<10 { normal[i * 10 + j] += ri * row[j] }
            }
        }
        for i in 0..<10 {
            for j in 0..<i { normal[i * 10 + j] = normal[j * 10 + i] }
        }
        let (_, vectors) = JacobiEigen.decompose(normal, size: 10)
        let p = (0..<10).map { vectors[$0 * 10] }

        let a = Matrix3(rows: Vector3(p[0], p[3], p[4]), Vector3(p[3], p[1], p[5]), Vector3(p[4], p[5], p[2]))
        let b = Vector3(p[6], p[7], p[8])
        guard let aInverse = a.inverse() else { throw FitError(.degenerate, "the fitted quadric has no centre") }
        let c = -(aInverse * b)
        let k = c.dot(a * c) - p[9]
        guard k != 0, k.isFinite else { throw FitError(.degenerate, "the fitted quadric is degenerate") }
        let shape = a * (1 / k)
        let (eigenvalues, _) = shape.symmetricEigen()
        guard eigenvalues.x > 0, eigenvalues.y > 0, eigenvalues.z > 0 else {
            throw FitError(
                .notAnEllipsoid, "the fitted quadric is not an ellipsoid: turn the device through more orientations")
        }
        guard let root = shape.symmetricSquareRoot() else {
            throw FitError(.notAnEllipsoid, "the fitted shape matrix is not positive definite")
        }
        // Back to µT: u − c = (x − (mean + scale·c)) / scale.
        let center = mean + c * scale
        let semiAxes = Vector3(
            scale / eigenvalues.z.squareRoot(), scale / eigenvalues.y.squareRoot(), scale / eigenvalues.x.squareRoot())
        let fittedRadius = cbrt(semiAxes.x * semiAxes.y * semiAxes.z)
        let target = radius ?? fittedRadius
        let softIron = root * (target / scale)
        guard softIron.isFinite, center.isFinite else { throw FitError(.degenerate, "the fit is not finite") }
        var sum = 0.0
        for sample in samples {
            let e = (softIron * (sample - center)).norm - target
            sum += e * e
        }
        return EllipsoidFit(
            center: center, softIron: softIron, radius: target, fittedRadius: fittedRadius, semiAxes: semiAxes,
            residual: (sum / Double(samples.count)).squareRoot())
    }
}
