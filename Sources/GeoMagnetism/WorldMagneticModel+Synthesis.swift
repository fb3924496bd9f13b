import Foundation

/// A field vector in the local geodetic north/east/down frame, in nT (or nT/yr for a rate).
struct FieldVector: Sendable, Equatable {
    var north: Double
    var east: Double
    var down: Double

    /// The field elements of this vector at a position.
    func magneticField(at position: GeodeticPosition) -> MagneticField {
        MagneticField(
            north: north, east: east, down: down,
            latitude: position.latitude, longitude: position.longitude)
    }

    /// The element rates of the given field when this vector is its rate of change.
    func change(of field: MagneticField) -> MagneticFieldChange {
        MagneticFieldChange(field: field, north: north, east: east, down: down)
    }
}

extension WorldMagneticModel {
    /// Synthesises the field and its yearly rate at a position, `yearsSinceEpoch` after the model epoch.
    ///
    /// This is NOAA's `MAG_Geomag` pipeline: `MAG_ComputeSphericalHarmonicVariables`,
    /// `MAG_AssociatedLegendreFunction` (`MAG_PcupLow`), `MAG_Summation` / `MAG_SecVarSummation` (with the
    /// `...Special` variants at the poles) and `MAG_RotateMagneticVector`. The main field uses the time-adjusted
    /// coefficients g + ġ·Δt, as `MAG_TimelyModifyMagneticModel` does. Scratch space lives on the stack.
    func synthesize(at position: GeodeticPosition, yearsSinceEpoch dt: Double) -> (field: FieldVector, rate: FieldVector) {
        let nMax = degree
        let termCount = CoefficientFile.index(n: nMax, m: nMax) + 1
        let sinPhi = sin(position.geocentricLatitude)
        let cosPhi = cos(position.geocentricLatitude)
        let ratio = Self.referenceRadius / position.radius

        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * termCount + 3 * (nMax + 1)) { scratch in
            let pcup = UnsafeMutableBufferPointer(rebasing: scratch[0..<termCount])
            let dpcup = UnsafeMutableBufferPointer(rebasing: scratch[termCount..<(2 * termCount)])
            let radiusPower = UnsafeMutableBufferPointer(rebasing: scratch[(2 * termCount)..<(2 * termCount + nMax + 1)])
            let cosML = UnsafeMutableBufferPointer(
                rebasing: scratch[(2 * termCount + nMax + 1)..<(2 * termCount + 2 * (nMax + 1))])
            let sinML = UnsafeMutableBufferPointer(
                rebasing: scratch[(2 * termCount + 2 * (nMax + 1))..<(2 * termCount + 3 * (nMax + 1))])

            // MAG_ComputeSphericalHarmonicVariables: (a/r)^(n+2) and cos/sin(mλ).
            radiusPower[0] = ratio * ratio
            for n in 1...nMax {
                radiusPower[n] = radiusPower[n - 1] * ratio
            }
            let cosLambda = cos(position.longitudeRadians)
            let sinLambda = sin(position.longitudeRadians)
            cosML[0] = 1
            sinML[0] = 0
            cosML[1] = cosLambda
            sinML[1] = sinLambda
            if nMax >= 2 {
                for m in 2...nMax {
                    cosML[m] = cosML[m - 1] * cosLambda - sinML[m - 1] * sinLambda
                    sinML[m] = cosML[m - 1] * sinLambda + sinML[m - 1] * cosLambda
                }
            }

            computeLegendreFunctions(x: sinPhi, degree: nMax, pcup: pcup, dpcup: dpcup)

            // MAG_Summation and MAG_SecVarSummation, in the geocentric frame.
            var bx = 0.0
            var by = 0.0
            var bz = 0.0
            var sx = 0.0
            var sy = 0.0
            var sz = 0.0
            for n in 1...nMax {
                let rp = radiusPower[n]
                let nPlusOne = Double(n + 1)
                for m in 0...n {
                    let i = CoefficientFile.index(n: n, m: m)
                    let gt = g[i] + dt * gDot[i]
                    let ht = h[i] + dt * hDot[i]
                    let c = cosML[m]
                    let s = sinML[m]
                    let p = pcup[i]
                    let dp = dpcup[i]
                    let mainCos = gt * c + ht * s
                    let svCos = gDot[i] * c + hDot[i] * s
                    bz -= rp * mainCos * nPlusOne * p
                    by += rp * (gt * s - ht * c) * Double(m) * p
                    bx -= rp * mainCos * dp
                    sz -= rp * svCos * nPlusOne * p
                    sy += rp * (gDot[i] * s - hDot[i] * c) * Double(m) * p
                    sx -= rp * svCos * dp
                }
            }
            if abs(cosPhi) > 1.0e-10 {
                by /= cosPhi
                sy /= cosPhi
            } else {
                // At the geographic poles Y has a removable singularity: MAG_SummationSpecial.
                (by, sy) = poleEastComponents(
                    sinPhi: sinPhi, dt: dt, radiusPower: radiusPower,
                    cosLambda: cosLambda, sinLambda: sinLambda)
            }

            // MAG_RotateMagneticVector: from geocentric back to geodetic north/down.
            let psi = position.geocentricLatitude - position.geodeticLatitude
            let sinPsi = sin(psi)
            let cosPsi = cos(psi)
            let field = FieldVector(north: bx * cosPsi - bz * sinPsi, east: by, down: bx * sinPsi + bz * cosPsi)
            let rate = FieldVector(north: sx * cosPsi - sz * sinPsi, east: sy, down: sx * sinPsi + sz * cosPsi)
            return (field, rate)
        }
    }

    /// NOAA's `MAG_PcupLow`: Schmidt semi-normalised associated Legendre functions P(n, m)(x) and their
    /// derivatives with respect to latitude, for x = sin(geocentric latitude).
    ///
    /// They are computed in Gauss normalisation by recursion and then scaled by the precomputed ratios; the sign
    /// of the derivative is flipped because the WMM formulas use dP/dφ rather than dP/dθ.
    private func computeLegendreFunctions(
        x: Double,
        degree nMax: Int,
        pcup: UnsafeMutableBufferPointer<Double>,
        dpcup: UnsafeMutableBufferPointer<Double>
    ) {
        pcup[0] = 1
        dpcup[0] = 0
        let z = ((1.0 - x) * (1.0 + x)).squareRoot()
        for n in 1...nMax {
            for m in 0...n {
                let i = CoefficientFile.index(n: n, m: m)
                if n == m {
                    let i1 = CoefficientFile.index(n: n - 1, m: m - 1)
                    pcup[i] = z * pcup[i1]
                    dpcup[i] = z * dpcup[i1] + x * pcup[i1]
                } else if n == 1 && m == 0 {
                    let i1 = CoefficientFile.index(n: n - 1, m: m)
                    pcup[i] = x * pcup[i1]
                    dpcup[i] = x * dpcup[i1] - z * pcup[i1]
                } else {
                    let i2 = CoefficientFile.index(n: n - 1, m: m)
                    if m > n - 2 {
                        pcup[i] = x * pcup[i2]
                        dpcup[i] = x * dpcup[i2] - z * pcup[i2]
                    } else {
                        let i1 = CoefficientFile.index(n: n - 2, m: m)
                        let k = recursionFactor[i]
                        pcup[i] = x * pcup[i2] - k * pcup[i1]
                        dpcup[i] = x * dpcup[i2] - z * pcup[i2] - k * dpcup[i1]
                    }
                }
            }
        }
        for i in 0...CoefficientFile.index(n: nMax, m: nMax) {
            let norm = schmidtNormalisation[i]
            pcup[i] *= norm
            dpcup[i] = -dpcup[i] * norm
        }
    }

    /// NOAA's `MAG_SummationSpecial` and `MAG_SecVarSummationSpecial`: the east component (and its rate) at the
    /// geographic poles, where dividing by cos(φ) is impossible, from the m = 1 terms alone.
    private func poleEastComponents(
        sinPhi: Double,
        dt: Double,
        radiusPower: UnsafeMutableBufferPointer<Double>,
        cosLambda: Double,
        sinLambda: Double
    ) -> (field: Double, rate: Double) {
        var previous = 1.0
        var beforePrevious = 0.0
        var norm1 = 1.0
        var by = 0.0
        var sy = 0.0
        for n in 1...degree {
            let i = CoefficientFile.index(n: n, m: 1)
            let norm2 = norm1 * Double(2 * n - 1) / Double(n)
            let norm3 = norm2 * (Double(n * 2) / Double(n + 1)).squareRoot()
            norm1 = norm2
            let pcupS: Double
            if n == 1 {
                pcupS = previous
            } else {
                let k = Double((n - 1) * (n - 1) - 1) / Double((2 * n - 1) * (2 * n - 3))
                pcupS = sinPhi * previous - k * beforePrevious
            }
            beforePrevious = previous
            previous = pcupS
            let gt = g[i] + dt * gDot[i]
            let ht = h[i] + dt * hDot[i]
            by += radiusPower[n] * (gt * sinLambda - ht * cosLambda) * pcupS * norm3
            sy += radiusPower[n] * (gDot[i] * sinLambda - hDot[i] * cosLambda) * pcupS * norm3
        }
        return (by, sy)
    }
}
