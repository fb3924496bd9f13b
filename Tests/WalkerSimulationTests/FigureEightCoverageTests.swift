import Foundation
import Testing
import WalkerSimulation

/// The walker's figure-8 is what calibrates the compass in simulation, so it must show the magnetometer the field
/// from most directions, as a person's figure-8 does: a compass calibration fits the soft iron only when the
/// readings cover enough of the sphere.
@Suite("Figure-8 coverage")
struct FigureEightCoverageTests {
    static func dot(_ a: [Double], _ b: [Double]) -> Double {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    /// The fraction of 64 nearly equal-area cells (a Fibonacci lattice, as the compass uses) that unit directions hit.
    static func coverage(of directions: [[Double]]) -> Double {
        let count = 64
        let golden = Double.pi * (3 - 5.0.squareRoot())
        let cells = (0..<count).map { i -> [Double] in
            let z = 1 - (2 * Double(i) + 1) / Double(count)
            let r = max(0, 1 - z * z).squareRoot()
            return [r * cos(golden * Double(i)), r * sin(golden * Double(i)), z]
        }
        var hit = Set<Int>()
        for direction in directions {
            let best = cells.indices.max { a, b in dot(cells[a], direction) < dot(cells[b], direction) }
            if let best { hit.insert(best) }
        }
        return Double(hit.count) / Double(count)
    }

    @Test(
        "the field seen during the figure-8 covers most of the sphere, at a steep and at a shallow dip",
        arguments: [
            ConstantGeomagneticField.munich,
            ConstantGeomagneticField(north: 39.7, east: -0.1, down: -10.6),  // near the equator, dip −15°
        ])
    func coversMostOfTheSphere(_ field: ConstantGeomagneticField) throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.figureEight = true
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: field)
        let directions = walker.advance(to: 5).imuSamples.map { sample -> [Double] in
            let norm = Self.dot(sample.mag, sample.mag).squareRoot()
            return sample.mag.map { $0 / norm }
        }
        // Identical loops (a closed Lissajous curve) covered about 0.47, too little for a soft-iron fit.
        let coverage = Self.coverage(of: directions)
        #expect(coverage >= 0.6, "coverage \(coverage)")
    }

    @Test("successive loops of the figure-8 differ, as a person's do")
    func loopsDiffer() throws {
        var configuration = WalkerConfiguration.ideal()
        configuration.figureEight = true
        configuration.route = .straight(heading: 0)
        var walker = try WalkerSimulator(configuration: configuration, fieldSource: ConstantGeomagneticField.munich)
        let samples = walker.advance(to: 5).imuSamples
        // One sweep period (1/0.7 s ≈ 71 samples at 50 Hz) apart, in the wave's full-width middle.
        let first = try #require(samples.first { abs($0.t - 1.5) < 1e-9 })
        let later = try #require(samples.first { abs($0.t - (1.5 + 71.0 / 50)) < 1e-9 })
        let cosine =
            Self.dot(first.mag, later.mag)
            / (Self.dot(first.mag, first.mag).squareRoot() * Self.dot(later.mag, later.mag).squareRoot())
        let angle = acos(cosine)
        #expect(angle * 180 / .pi > 20, "the field direction one loop later differs by \(angle * 180 / .pi)°")
    }
}
