import Foundation

/// How much of the sphere of field directions a set of magnetometer samples covers.
///
/// An ellipsoid fit is only trustworthy when the device has been turned through most
/// orientations (MotionCal asks for gaps under 15% of 100 regions). The sphere is split into
/// ``binCount`` nearly equal-area cells around a Fibonacci lattice of directions; a sample hits
/// the cell whose centre direction is nearest to `(raw − centre)`. Coverage is the fraction of
/// cells hit. A device turned only flat traces one circle of directions and covers little; a
/// full figure-8 covers most.
public struct SphereCoverage: Sendable, Hashable {
    /// The cell centres: unit vectors of a Fibonacci lattice.
    public let directions: [Vector3]

    /// The number of cells.
    public var binCount: Int { directions.count }

    /// Creates the cells.
    /// - Parameter binCount: The number of cells, at least 1 (64 by default: cells about 28°
    ///   across, fine enough to tell a figure-8 from a flat turn).
    public init(binCount: Int = 64) {
        let n = max(1, binCount)
        let golden = Double.pi * (3 - 5.0.squareRoot())
        directions = (0..<n).map { i in
            let z = 1 - (2 * Double(i) + 1) / Double(n)
            let r = max(0, 1 - z * z).squareRoot()
            let phi = golden * Double(i)
            return Vector3(r * cos(phi), r * sin(phi), z)
        }
    }

    /// The cell of a direction.
    /// - Parameter direction: Any non-zero vector; it need not be normalised.
    /// - Returns: The index of the nearest cell centre, or `nil` for a zero or non-finite vector.
    public func bin(of direction: Vector3) -> Int? {
        guard direction.isFinite, direction.squaredNorm > 0 else { return nil }
        var best = 0
        var bestDot = -Double.infinity
        for (index, centre) in directions.enumerated() {
            let d = centre.dot(direction)
            if d > bestDot {
                bestDot = d
                best = index
            }
        }
        return best
    }

    /// The fraction of cells hit by the directions `sample − center`.
    /// - Parameters:
    ///   - samples: Raw magnetometer readings in µT.
    ///   - center: The current hard-iron estimate.
    /// - Returns: A value in 0...1.
    public func coverage(of samples: [Vector3], center: Vector3) -> Double {
        var hit = [Bool](repeating: false, count: binCount)
        for sample in samples {
            if let index = bin(of: sample - center) { hit[index] = true }
        }
        return Double(hit.lazy.filter { $0 }.count) / Double(binCount)
    }
}
