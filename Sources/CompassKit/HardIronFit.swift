/// The 4-parameter sphere fit: hard-iron offset and field radius, soft iron ignored.
///
/// Linear least squares (AN4246's 4-element fit): `|x|² = 2 c·x + (r² − |c|²)` is linear in the
/// centre `c` and in `k = r² − |c|²`. The data are centred on their mean first so that the normal
/// equations stay well conditioned for offsets of hundreds of µT.
public struct HardIronFit: Sendable, Hashable {
    /// The fitted centre: the hard-iron offset in µT.
    public var center: Vector3
    /// The fitted radius: the field strength seen by the sensor, in µT.
    public var radius: Double
    /// The RMS distance of the samples from the sphere, `|x − c| − r`, in µT.
    public var residual: Double

    /// Creates a fit result.
    /// - Parameters:
    ///   - center: The hard-iron offset.
    ///   - radius: The sphere radius.
    ///   - residual: The RMS residual.
    public init(center: Vector3, radius: Double, residual: Double) {
        self.center = center
        self.radius = radius
        self.residual = residual
    }

    /// Fits a sphere to magnetometer samples.
    ///
    /// - Parameters:
    ///   - samples: Raw readings in µT; at least 4, not all in one plane.
    ///   - minimumSpread: The smallest allowed ratio of the data's thinnest to its widest
    ///     standard deviation. Samples from a device turned only flat lie on a circle, where
    ///     the centre along the circle's axis is not determined; noise would then pick it.
    /// - Throws: ``FitError`` with `tooFewSamples` or `degenerate`.
    /// - Returns: The fitted sphere.
    public static func fit(_ samples: [Vector3], minimumSpread: Double = 0.05) throws(FitError) -> HardIronFit {
        guard samples.count >= 4 else { throw FitError(.tooFewSamples, "a sphere fit needs at least 4 samples") }
        var mean = Vector3.zero
        for sample in samples { mean += sample }
        mean = mean / Double(samples.count)
        guard mean.isFinite else { throw FitError(.degenerate, "samples are not finite") }

        var covariance = Matrix3(rows: .zero, .zero, .zero)
        var ata = [Double](repeating: 0, count: 16)
        var atb = [Double](repeating: 0, count: 4)
        for sample in samples {
            let d = sample - mean
            covariance.row0 += d * d.x
            covariance.row1 += d * d.y
            covariance.row2 += d * d.z
            let row = (2 * d.x, 2 * d.y, 2 * d.z, 1.0)
            let target = d.squaredNorm
            withUnsafeBytes(of: row) { raw in
                let r = raw.bindMemory(to: Double.self)
                for i in 0..<4 {
                    atb[i] += r[i] * target
                    for j in 0..<4 { ata[i * 4 + j] += r[i] * r[j] }
                }
            }
        }
        let spread = covariance.symmetricEigen().values
        guard spread.z > 0, spread.x >= minimumSpread * minimumSpread * spread.z else {
            throw FitError(.degenerate, "samples lie (nearly) in a plane: turn the device through more orientations")
        }
        guard let solution = LinearSystem.solve(ata, atb, size: 4) else {
            throw FitError(.degenerate, "the sphere fit's normal equations are singular")
        }
        let offset = Vector3(solution[0], solution[1], solution[2])
        let radiusSquared = solution[3] + offset.squaredNorm
        guard radiusSquared > 0 else { throw FitError(.degenerate, "the fitted sphere has no radius") }
        let radius = radiusSquared.squareRoot()
        var sum = 0.0
        for sample in samples {
            let e = (sample - mean - offset).norm - radius
            sum += e * e
        }
        return HardIronFit(center: mean + offset, radius: radius, residual: (sum / Double(samples.count)).squareRoot())
    }
}
