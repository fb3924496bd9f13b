import Foundation

/// A 3×3 matrix of doubles, stored as three rows.
///
/// Used for the soft-iron correction (`corrected = softIron · (raw − hardIron)`), for the shape
/// matrix of a fitted ellipsoid and for rotations in tests. It encodes as a JSON array of three
/// rows, the shape of `softIron` in the bus contract.
public struct Matrix3: Sendable, Hashable {
    /// The first row.
    public var row0: Vector3
    /// The second row.
    public var row1: Vector3
    /// The third row.
    public var row2: Vector3

    /// Creates a matrix from its rows.
    /// - Parameters:
    ///   - row0: The first row.
    ///   - row1: The second row.
    ///   - row2: The third row.
    @inlinable
    public init(rows row0: Vector3, _ row1: Vector3, _ row2: Vector3) {
        self.row0 = row0
        self.row1 = row1
        self.row2 = row2
    }

    /// Creates a matrix from its columns.
    /// - Parameters:
    ///   - c0: The first column.
    ///   - c1: The second column.
    ///   - c2: The third column.
    public init(columns c0: Vector3, _ c1: Vector3, _ c2: Vector3) {
        self.init(rows: Vector3(c0.x, c1.x, c2.x), Vector3(c0.y, c1.y, c2.y), Vector3(c0.z, c1.z, c2.z))
    }

    /// Creates a matrix from nested arrays (rows), as found in a JSON payload.
    /// - Parameter rows: Three rows of three numbers; anything else gives `nil`.
    public init?(_ rows: [[Double]]) {
        guard rows.count == 3, let r0 = Vector3(rows[0]), let r1 = Vector3(rows[1]), let r2 = Vector3(rows[2])
        else { return nil }
        self.init(rows: r0, r1, r2)
    }

    /// A diagonal matrix.
    /// - Parameter diagonal: The diagonal entries.
    public init(diagonal: Vector3) {
        self.init(rows: Vector3(diagonal.x, 0, 0), Vector3(0, diagonal.y, 0), Vector3(0, 0, diagonal.z))
    }

    /// The identity: the soft-iron matrix of an uncalibrated or sphere-fitted magnetometer.
    public static let identity = Matrix3(diagonal: Vector3(1, 1, 1))

    /// The rows as nested arrays, `[[a, b, c], [d, e, f], [g, h, i]]`.
    public var rows: [[Double]] { [row0.array, row1.array, row2.array] }

    /// The entry at a row and column, both 0-based.
    /// - Parameters:
    ///   - row: 0, 1 or 2.
    ///   - column: 0, 1 or 2.
    public subscript(row: Int, column: Int) -> Double {
        get {
            let r = row == 0 ? row0 : (row == 1 ? row1 : row2)
            return column == 0 ? r.x : (column == 1 ? r.y : r.z)
        }
        set {
            var r = row == 0 ? row0 : (row == 1 ? row1 : row2)
            switch column {
            case 0: r.x = newValue
            case 1: r.y = newValue
            default: r.z = newValue
            }
            switch row {
            case 0: row0 = r
            case 1: row1 = r
            default: row2 = r
            }
        }
    }

    /// The first column.
    public var column0: Vector3 { Vector3(row0.x, row1.x, row2.x) }
    /// The second column.
    public var column1: Vector3 { Vector3(row0.y, row1.y, row2.y) }
    /// The third column.
    public var column2: Vector3 { Vector3(row0.z, row1.z, row2.z) }

    /// The transpose.
    public var transposed: Matrix3 { Matrix3(rows: column0, column1, column2) }

    /// The determinant.
    public var determinant: Double { row0.dot(row1.cross(row2)) }

    /// The sum of the diagonal.
    public var trace: Double { row0.x + row1.y + row2.z }

    /// Whether every entry is finite.
    public var isFinite: Bool { row0.isFinite && row1.isFinite && row2.isFinite }

    /// The inverse, or `nil` when the matrix is singular (relative to its scale), so that a
    /// degenerate fit is reported rather than producing huge numbers.
    public func inverse() -> Matrix3? {
        let c0 = row1.cross(row2)
        let c1 = row2.cross(row0)
        let c2 = row0.cross(row1)
        let det = row0.dot(c0)
        let scale = max(row0.norm * row1.norm * row2.norm, .leastNormalMagnitude)
        guard det.isFinite, abs(det) > 1e-12 * scale else { return nil }
        return Matrix3(columns: c0 / det, c1 / det, c2 / det)
    }

    /// Whether the matrix equals its transpose within a tolerance.
    /// - Parameter tolerance: The largest allowed difference between mirrored entries.
    public func isSymmetric(tolerance: Double = 1e-9) -> Bool {
        abs(row0.y - row1.x) <= tolerance && abs(row0.z - row2.x) <= tolerance && abs(row1.z - row2.y) <= tolerance
    }

    /// Matrix times vector.
    @inlinable
    public static func * (lhs: Matrix3, rhs: Vector3) -> Vector3 {
        Vector3(lhs.row0.dot(rhs), lhs.row1.dot(rhs), lhs.row2.dot(rhs))
    }

    /// Matrix product.
    public static func * (lhs: Matrix3, rhs: Matrix3) -> Matrix3 {
        let c0 = rhs.column0
        let c1 = rhs.column1
        let c2 = rhs.column2
        return Matrix3(
            rows: Vector3(lhs.row0.dot(c0), lhs.row0.dot(c1), lhs.row0.dot(c2)),
            Vector3(lhs.row1.dot(c0), lhs.row1.dot(c1), lhs.row1.dot(c2)),
            Vector3(lhs.row2.dot(c0), lhs.row2.dot(c1), lhs.row2.dot(c2)))
    }

    /// Scales every entry.
    public static func * (lhs: Matrix3, rhs: Double) -> Matrix3 {
        Matrix3(rows: lhs.row0 * rhs, lhs.row1 * rhs, lhs.row2 * rhs)
    }

    /// Entry-wise sum.
    public static func + (lhs: Matrix3, rhs: Matrix3) -> Matrix3 {
        Matrix3(rows: lhs.row0 + rhs.row0, lhs.row1 + rhs.row1, lhs.row2 + rhs.row2)
    }

    /// Entry-wise difference.
    public static func - (lhs: Matrix3, rhs: Matrix3) -> Matrix3 {
        Matrix3(rows: lhs.row0 - rhs.row0, lhs.row1 - rhs.row1, lhs.row2 - rhs.row2)
    }

    /// The rotation about an axis by an angle (right-hand rule), as used to build test orientations.
    /// - Parameters:
    ///   - axis: The rotation axis; it is normalised. A zero axis gives the identity.
    ///   - degrees: The angle in degrees, counter-clockwise when looking against the axis.
    public static func rotation(axis: Vector3, degrees: Double) -> Matrix3 {
        guard let u = axis.normalized() else { return .identity }
        let a = degrees * .pi / 180
        let c = cos(a)
        let s = sin(a)
        let t = 1 - c
        return Matrix3(
            rows: Vector3(t * u.x * u.x + c, t * u.x * u.y - s * u.z, t * u.x * u.z + s * u.y),
            Vector3(t * u.x * u.y + s * u.z, t * u.y * u.y + c, t * u.y * u.z - s * u.x),
            Vector3(t * u.x * u.z - s * u.y, t * u.y * u.z + s * u.x, t * u.z * u.z + c))
    }
}

extension Matrix3: Codable {
    /// Decodes from three rows of three numbers.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let r0 = try container.decode(Vector3.self)
        let r1 = try container.decode(Vector3.self)
        let r2 = try container.decode(Vector3.self)
        guard container.isAtEnd else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a matrix has exactly three rows")
        }
        self.init(rows: r0, r1, r2)
    }

    /// Encodes as three rows of three numbers.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(row0)
        try container.encode(row1)
        try container.encode(row2)
    }
}

extension Matrix3: CustomStringConvertible {
    /// The rows as `[[…], […], […]]`.
    public var description: String { "[\(row0), \(row1), \(row2)]" }
}
