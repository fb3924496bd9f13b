import CompassKit
import Foundation
import StepCompassTesting
import Testing

@Suite struct CalibrationFitTests {
    /// Raw readings of a figure-8: the 48 µT field seen from many orientations, distorted by
    /// soft iron W⁻¹ and hard iron, plus Gaussian noise.
    static func figureEight(count: Int, noise: Double, seed: UInt64 = 1) -> (
        raw: [Vector3], truth: [Vector3], accel: [Vector3], heading: [Double]
    ) {
        var rng = SeededGenerator(seed: seed)
        var raw: [Vector3] = []
        var truth: [Vector3] = []
        var accel: [Vector3] = []
        var heading: [Double] = []
        for _ in 0..<count {
            let o = Synthetic.randomOrientation(using: &rng)
            let r = Synthetic.reading(heading: o.heading, pitch: o.pitch, roll: o.roll)
            let n = Vector3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian()) * noise
            raw.append(Synthetic.softIronDistortion * r.mag + Synthetic.hardIronOffset + n)
            truth.append(r.mag)
            accel.append(r.accel)
            heading.append(o.heading)
        }
        return (raw, truth, accel, heading)
    }

    @Test func sphereFitRecoversAFortyMicroteslaOffset() throws {
        var rng = SeededGenerator(seed: 3)
        let offset = Vector3(40, 0, 0)
        let samples = (0..<300).map { _ -> Vector3 in
            let o = Synthetic.randomOrientation(using: &rng)
            return Synthetic.reading(heading: o.heading, pitch: o.pitch, roll: o.roll).mag + offset
                + Vector3(rng.nextGaussian(), rng.nextGaussian(), rng.nextGaussian()) * 0.3
        }
        let fit = try HardIronFit.fit(samples)
        #expect((fit.center - offset).norm < 0.3)
        #expect(abs(fit.radius - 48) < 0.3)
        #expect(fit.residual < 0.6)
    }

    @Test func sphereFitRefusesAFlatTurn() {
        let samples = stride(from: 0.0, to: 360, by: 3).map {
            Synthetic.reading(heading: $0, pitch: 0, roll: 0).mag + Synthetic.hardIronOffset
        }
        #expect(throws: FitError.self) { try HardIronFit.fit(samples) }
    }

    @Test func ellipsoidFitRecoversSoftIronAndOffset() throws {
        let data = Self.figureEight(count: 400, noise: 0.3)
        let fit = try EllipsoidFit.fit(data.raw, radius: 48)
        #expect((fit.center - Synthetic.hardIronOffset).norm < 0.5)
        let expectedW = try #require(Synthetic.softIronDistortion.inverse())
        for i in 0..<3 {
            for j in 0..<3 { #expect(abs(fit.softIron[i, j] - expectedW[i, j]) < 0.01) }
        }
        #expect(fit.softIron.isSymmetric())
        #expect(fit.residual < 0.6)
        // Heading error on fresh, noise-free readings corrected with the fit.
        var rng = SeededGenerator(seed: 99)
        var worst = 0.0
        for _ in 0..<300 {
            let o = Synthetic.randomOrientation(using: &rng)
            let pitch = max(-65, min(65, o.pitch))
            let r = Synthetic.reading(heading: o.heading, pitch: pitch, roll: o.roll)
            let raw = Synthetic.softIronDistortion * r.mag + Synthetic.hardIronOffset
            let corrected = fit.softIron * (raw - fit.center)
            let heading = try #require(TiltCompensation.orientation(gravity: r.accel, magneticField: corrected)).heading
            worst = max(worst, abs(Angle.difference(from: o.heading, to: heading)))
        }
        #expect(worst < 1, "worst heading error \(worst)°")
    }

    @Test func ellipsoidFitWithoutRadiusKeepsUnitDeterminant() throws {
        let data = Self.figureEight(count: 300, noise: 0.2, seed: 9)
        let fit = try EllipsoidFit.fit(data.raw)
        #expect(abs(fit.softIron.determinant - 1) < 1e-9)
        #expect(abs(fit.radius - fit.fittedRadius) < 1e-12)
    }

    @Test func ellipsoidFitRejectsAHyperboloid() {
        // Points on x² + y² − z² = 40²: the quadric fits exactly, but it is no ellipsoid.
        var samples: [Vector3] = []
        for i in 0..<20 {
            for j in 0..<20 {
                let t = -1 + 2 * Double(i) / 19
                let phi = 2 * Double.pi * Double(j) / 20
                samples.append(
                    Vector3(40 * cosh(t) * cos(phi), 40 * cosh(t) * sin(phi), 40 * sinh(t)) + Vector3(5, 6, 7))
            }
        }
        #expect {
            try EllipsoidFit.fit(samples)
        } throws: { error in
            (error as? FitError)?.code == .notAnEllipsoid
        }
    }

    @Test func coverageIsLowForAFlatTurnAndHighForAFigureEight() {
        let cells = SphereCoverage(binCount: 64)
        let flat = stride(from: 0.0, to: 360, by: 1).map {
            Synthetic.reading(heading: $0, pitch: 0, roll: 0).mag + Synthetic.hardIronOffset
        }
        let flatCoverage = cells.coverage(of: flat, center: Synthetic.hardIronOffset)
        #expect(flatCoverage < 0.2)
        let full = Self.figureEight(count: 500, noise: 0.3).raw
        let fullCoverage = cells.coverage(of: full, center: Synthetic.hardIronOffset)
        #expect(fullCoverage > 0.9)
    }

    @Test func symmetricEigenDecomposes() throws {
        let m = Matrix3(rows: Vector3(4, 1, 0.5), Vector3(1, 3, 0.2), Vector3(0.5, 0.2, 2))
        let (values, vectors) = m.symmetricEigen()
        #expect(values.x <= values.y && values.y <= values.z)
        let rebuilt = vectors * Matrix3(diagonal: values) * vectors.transposed
        for i in 0..<3 {
            for j in 0..<3 { #expect(abs(rebuilt[i, j] - m[i, j]) < 1e-12) }
        }
        let root = try #require(m.symmetricSquareRoot())
        let square = root * root
        for i in 0..<3 {
            for j in 0..<3 { #expect(abs(square[i, j] - m[i, j]) < 1e-12) }
        }
        #expect(Matrix3(diagonal: Vector3(1, -1, 2)).symmetricSquareRoot() == nil)
    }

    @Test func vectorsAndMatricesEncodeAsArrays() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(Matrix3.identity), as: UTF8.self)
        #expect(json == "[[1,0,0],[0,1,0],[0,0,1]]")
        let v = try JSONDecoder().decode(Vector3.self, from: Data("[1.5,2,-3]".utf8))
        #expect(v == Vector3(1.5, 2, -3))
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Vector3.self, from: Data("[1,2]".utf8)) }
    }
}
